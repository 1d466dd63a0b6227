import HTTPCore
import Testing

/// What a parser produced for a whole input: the requests in order, then at most one failure.
struct ParseOutcome: Equatable {
    var requests: [HTTPRequest] = []
    var failure: HTTPParseError?
    /// How many times `.expectsContinue` was reported.
    var continues = 0

    /// The failure's status code, or `nil` when there was none.
    var failureCode: Int? { failure?.status.code }
}

/// Feeds `bytes` to a fresh parser in pieces of `pieceSize` bytes (all at once when `nil`), draining
/// `next()` after each piece, and collects what came out.
func feed(_ bytes: [UInt8], limits: HTTPParserLimits = HTTPParserLimits(), pieceSize: Int? = nil) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = ParseOutcome()
    var offset = 0
    var piece = 0
    let step = max(1, pieceSize ?? bytes.count)
    repeat {
        let end = min(bytes.count, offset + step)
        if pieceSize == nil || piece % 2 == 0 {
            parser.append(contentsOf: bytes[offset..<end])
        } else {
            // Exercise the raw-pointer entry point too.
            bytes[offset..<end].withUnsafeBytes { parser.append($0) }
        }
        offset = end
        piece += 1
        drain: while true {
            switch parser.next() {
            case .request(let request): outcome.requests.append(request)
            case .needMoreData: break drain
            case .expectsContinue: outcome.continues += 1
            case .failure(let error):
                outcome.failure = error
                return outcome
            }
        }
    } while offset < bytes.count
    return outcome
}

/// Feeds the text whole and byte by byte, requires both to give the same requests and failure, and
/// returns the outcome of the whole feed.
func parse(
    _ text: String, limits: HTTPParserLimits = HTTPParserLimits(), sourceLocation: SourceLocation = #_sourceLocation
) -> ParseOutcome {
    parse(Array(text.utf8), limits: limits, sourceLocation: sourceLocation)
}

/// Feeds the bytes whole, byte by byte and in pieces of 7, requiring the same requests and failure.
func parse(
    _ bytes: [UInt8], limits: HTTPParserLimits = HTTPParserLimits(), sourceLocation: SourceLocation = #_sourceLocation
) -> ParseOutcome {
    let whole = feed(bytes, limits: limits)
    for pieceSize in [1, 7] {
        let split = feed(bytes, limits: limits, pieceSize: pieceSize)
        #expect(split.requests == whole.requests, "piece size \(pieceSize)", sourceLocation: sourceLocation)
        #expect(split.failure == whole.failure, "piece size \(pieceSize)", sourceLocation: sourceLocation)
    }
    return whole
}

/// A request head with the given lines, CRLF-terminated, plus the empty line and a body.
func head(_ lines: String..., body: String = "") -> String {
    lines.map { $0 + "\r\n" }.joined() + "\r\n" + body
}

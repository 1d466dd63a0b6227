// libFuzzer entry for HTTPCore's request parser (Fuzz/run.sh HTTPParser). Crashes, sanitizer reports
// and broken invariants are findings; a parse failure is an ordinary outcome.
//
// Input: byte 0 and 1 choose where the stream is split in two, byte 2 the size of the pieces of a
// third feed (1…16 bytes); the rest is the byte stream a client sent.
import HTTPCore

/// Small limits, so that every limit is reached by inputs of a few hundred bytes.
let limits = HTTPParserLimits(
    maxRequestLineBytes: 200, maxHeaderBytes: 400, maxHeaderCount: 8, maxBodyBytes: 300,
    maxEmptyLinesBeforeRequest: 4, maxChunkExtensionBytes: 64, maxTrailerBytes: 128)

/// The statuses RFC 9112 prescribes for a request that cannot be parsed, as the parser documents them.
let failureStatuses: Set<Int> = [400, 413, 414, 417, 431, 501, 505]

/// What one feed produced: the requests in order, then at most one failure, and whether the parser was
/// idle at the end.
struct Outcome: Equatable {
    var requests: [HTTPRequest] = []
    var failure: HTTPParseError?
    var idle = false
}

/// Feeds `stream` in the pieces that `cuts` (ascending offsets) delimit, draining after each.
func feed(_ stream: ArraySlice<UInt8>, cuts: [Int]) -> Outcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = Outcome()
    var start = stream.startIndex
    for (index, cut) in (cuts + [stream.endIndex]).enumerated() {
        let piece = stream[start..<cut]
        start = cut
        // Both entry points, alternately.
        if index % 2 == 0 {
            parser.append(contentsOf: piece)
        } else {
            piece.withUnsafeBytes { parser.append($0) }
        }
        drain: while true {
            switch parser.next() {
            case .request(let request):
                check(request)
                outcome.requests.append(request)
            case .needMoreData: break drain
            case .expectsContinue: continue
            case .failure(let error):
                require(failureStatuses.contains(error.status.code), "failure status \(error.status.code)")
                require(parser.next() == .failure(error), "a failure is not sticky")
                outcome.failure = error
                return outcome
            }
        }
    }
    outcome.idle = parser.isIdle
    return outcome
}

/// What must hold of every request the parser hands out.
func check(_ request: HTTPRequest) {
    let target = Array(request.target.utf8)
    require(!target.isEmpty && target.count <= limits.maxRequestLineBytes, "target length \(target.count)")
    require(target.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "target byte outside visible ASCII")
    require(!request.method.rawValue.isEmpty && request.method.rawValue.utf8.allSatisfy(isTokenByte))
    // The limit counts the lines the client sent; an absolute-form target's authority adds or replaces
    // Host (RFC 9112 §3.2.2), so such a request may carry one field more.
    let isAbsoluteForm = target.first != UInt8(ascii: "/") && target != Array("*".utf8)
    require(
        request.headers.count <= limits.maxHeaderCount + (isAbsoluteForm ? 1 : 0), "\(request.headers.count) fields")
    if isAbsoluteForm {
        require(request.headers.values(for: "Host").count == 1, "absolute-form request without one Host")
    }
    require(request.body.count <= limits.maxBodyBytes, "body of \(request.body.count) bytes")
    for field in request.headers {
        require(!field.name.isEmpty && field.name.utf8.allSatisfy(isTokenByte), "field name \(field.name)")
        require(
            !field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }, "CR, LF or NUL in a field value")
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        require(
            !(field.value.utf8.first.map(isWhitespace) ?? false) && !(field.value.utf8.last.map(isWhitespace) ?? false),
            "field value not trimmed")
    }
    require(request.version.major == 1, "version \(request.version)")
}

/// RFC 9110 §5.6.2 tchar.
func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "A")...UInt8(ascii: "Z"):
        true
    default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

/// Parses the input fed whole, split in two, and in small pieces; all three must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 3, let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let stream = input[3...]
    let split = 3 + (Int(input[0]) << 8 | Int(input[1])) % (stream.count + 1)
    let pieceSize = 1 + Int(input[2]) % 16

    let whole = feed(stream, cuts: [])
    let halves = feed(stream, cuts: [split])
    let pieces = feed(
        stream, cuts: Array(stride(from: stream.startIndex + pieceSize, to: stream.endIndex, by: pieceSize)))
    require(whole == halves, "splitting at \(split - 3) changed the outcome")
    require(whole == pieces, "feeding \(pieceSize) bytes at a time changed the outcome")
    return 0
}

/// `precondition` that keeps its message in optimized builds, so a finding says what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant broken") {
    if !condition { fatalError(message()) }
}

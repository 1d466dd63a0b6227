import HTTPCore
import Testing

/// The parser's central promise: how bytes are split across reads never changes the outcome. Mutated
/// requests are fed whole and in random pieces; both must give the same requests and failure.
@Suite struct HTTPRequestParserSplitTests {
    /// A small deterministic generator (xorshift64*), so a failure reproduces.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
    }

    static let corpus: [String] = [
        head("GET /a?b=c HTTP/1.1", "Host: h.test", "Accept: */*"),
        head("POST /p HTTP/1.1", "Host: h", "Content-Length: 5", body: "hello"),
        head("PUT /c HTTP/1.1", "Host: h", "Transfer-Encoding: chunked", body: "3;e=1\r\nabc\r\n0\r\nT: x\r\n\r\n"),
        head("GET http://x.test:81/p HTTP/1.1", "Host: y", "Expect: 100-continue", "Content-Length: 1", body: "z"),
        "\r\n" + head("OPTIONS * HTTP/1.0"),
    ]

    /// Bytes the mutations insert: the ones framing and grammar care about.
    static let interesting: [UInt8] = Array("\r\n :;,=\"\\\t0aZ-/?%*".utf8) + [0x00, 0x7F, 0xC3]

    @Test(arguments: 0..<8)
    func randomSplitsOfMutatedRequestsGiveTheSameOutcome(seed: UInt64) {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15 &+ seed &* 0x1000_0001)
        for _ in 0..<150 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                bytes += Array(Self.corpus.randomElement(using: &generator)!.utf8)
            }
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.remove(at: position)
                case 1: bytes.insert(Self.interesting.randomElement(using: &generator)!, at: position)
                default: bytes[position] = Self.interesting.randomElement(using: &generator)!
                }
                if bytes.isEmpty { bytes = [0x47] }
            }
            let whole = feed(bytes)
            var parser = HTTPRequestParser()
            var split = ParseOutcome()
            var offset = 0
            pieces: while offset < bytes.count {
                let end = min(bytes.count, offset + Int.random(in: 1...40, using: &generator))
                parser.append(contentsOf: bytes[offset..<end])
                offset = end
                while true {
                    switch parser.next() {
                    case .request(let request): split.requests.append(request)
                    case .needMoreData: continue pieces
                    case .expectsContinue: continue
                    case .failure(let error):
                        split.failure = error
                        break pieces
                    }
                }
            }
            #expect(split.requests == whole.requests, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            #expect(split.failure == whole.failure, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }
}

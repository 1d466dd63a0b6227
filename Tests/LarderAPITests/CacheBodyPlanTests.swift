import CacheCore
import HTTPCore
import LarderAPI
import TestSupport
import Testing

struct CacheBodyPlanTests {
    static func entry(length: Int = 1000, codec: BodyCodec = .identity, headers: [(String, String)] = []) -> StoredEntry
    {
        var entry = CacheCoreFixtures.makeEntry(
            extraHeaders: [("ETag", "\"v1\""), ("Content-Length", "999")] + headers)
        entry.setStoredBody(
            StoredBodyFacts(originalSize: length, storedSize: length / 3, codec: codec, crc32: 0, chunkSize: 4096),
            bodyID: 1, now: CacheCoreFixtures.epoch)
        return entry
    }

    static func plan(_ entry: StoredEntry, _ headers: [(String, String)]) -> CacheBodyPlan.Outcome {
        CacheBodyPlan(entry: entry, requestHeaders: HTTPHeaders(headers)).outcome
    }

    @Test func aPlainRequestGetsTheIdentityBodyWithStoredHeadersButNotTheirFraming() {
        guard case .send(let status, let form, let headers) = Self.plan(Self.entry(), []) else {
            Issue.record("not sent")
            return
        }
        #expect(status.code == 200)
        #expect(form == .identity)
        #expect(headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(headers["ETag"] == "\"v1\"")
        #expect(headers["Content-Length"] == nil)
        #expect(headers["Accept-Ranges"] == "bytes")
        #expect(headers["Vary"] == nil)
    }

    @Test func aGzipCallerGetsTheStoredGzipWithAWeakETagAndVary() {
        let entry = Self.entry(codec: .deflateChunked, headers: [("Vary", "Origin")])
        guard case .send(_, let form, let headers) = Self.plan(entry, [("Accept-Encoding", "br, gzip;q=0.5")]) else {
            Issue.record("not sent")
            return
        }
        #expect(form == .gzip)
        #expect(headers["Content-Encoding"] == "gzip")
        #expect(headers["ETag"] == "W/\"v1\"")
        #expect(headers["Vary"] == "Origin, Accept-Encoding")
    }

    @Test(arguments: ["identity", "gzip;q=0", "br"])
    func aCallerWithoutGzipGetsIdentityEvenWhenStoredDeflated(_ acceptEncoding: String) {
        guard
            case .send(_, let form, let headers) = Self.plan(
                Self.entry(codec: .deflateChunked), [("Accept-Encoding", acceptEncoding)])
        else { Issue.record("not sent"); return }
        #expect(form == .identity)
        #expect(headers["Content-Encoding"] == nil)
        #expect(headers["Vary"] == "Accept-Encoding")
    }

    @Test(
        arguments: [
            ("bytes=0-99", 0..<100), ("bytes=900-", 900..<1000), ("bytes=-10", 990..<1000),
            ("bytes=500-5000", 500..<1000),
            ("bytes=0-0", 0..<1),
        ] as [(String, Range<Int>)])
    func aSingleRangeIs206WithContentRange(_ field: String, _ expected: Range<Int>) {
        guard
            case .send(let status, let form, let headers) = Self.plan(
                Self.entry(codec: .deflateChunked), [("Range", field), ("Accept-Encoding", "gzip")])
        else { Issue.record("not sent"); return }
        #expect(status.code == 206)
        #expect(form == .range(expected))
        #expect(headers["Content-Range"] == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/1000")
        #expect(headers["Content-Encoding"] == nil)
    }

    @Test func aStoredContentRangeIsReplayedOnAWholeAnswerAndReplacedOnARange() {
        let entry = Self.entry(headers: [("Content-Range", "bytes 0-999/5000")])
        guard case .send(let status, _, let whole) = Self.plan(entry, []) else { Issue.record("not sent"); return }
        #expect(status.code == 200)
        #expect(whole.values(for: "Content-Range") == ["bytes 0-999/5000"])
        guard case .send(_, _, let ranged) = Self.plan(entry, [("Range", "bytes=0-9")]) else {
            Issue.record("not sent")
            return
        }
        #expect(ranged.values(for: "Content-Range") == ["bytes 0-9/1000"])
    }

    @Test func severalRangesAreAnsweredWithTheWholeBody() {
        guard case .send(let status, let form, _) = Self.plan(Self.entry(), [("Range", "bytes=0-9,500-509")]) else {
            Issue.record("not sent")
            return
        }
        #expect(status.code == 200)
        #expect(form == .identity)
    }

    @Test(arguments: ["bytes=1000-", "bytes=5000-6000", "bytes=-0"])
    func anUnsatisfiableRangeIs416WithTheLength(_ field: String) {
        guard case .unsatisfiable(let error) = Self.plan(Self.entry(), [("Range", field)]) else {
            Issue.record("\(field) was satisfied")
            return
        }
        #expect(error.status.code == 416)
        #expect(error.headers["Content-Range"] == "bytes */1000")
    }

    @Test(arguments: [
        ("\"v1\"", true), ("\"v2\"", false), ("W/\"v1\"", false), ("Sat, 01 Jan 2000 00:00:00 GMT", false),
    ])
    func ifRangeKeepsTheRangeOnlyForTheStoredStrongETag(_ condition: String, _ honoured: Bool) {
        guard case .send(let status, _, _) = Self.plan(Self.entry(), [("Range", "bytes=0-9"), ("If-Range", condition)])
        else { Issue.record("not sent"); return }
        #expect(status.code == (honoured ? 206 : 200))
    }
}

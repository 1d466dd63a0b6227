import CacheCore
import CachePolicy
import HTTPCore
import HTTPServer
import Synchronization

/// One response kept in memory by ``HotEntryCache``: the stored metadata, the body in the form it is
/// sent to one class of callers (``EncodingVariant``: identity, or gzip for callers that accept it), the
/// replayed header fields, and the serialized response head of the last second it was sent in.
///
/// Only `Age`, `Cache-Status`'s `ttl` and `Date` change between two hits on a fresh entry; they change at
/// most once per second. The head is therefore kept as bytes and rebuilt only when one of them differs
/// from the last build, so a hit copies it instead of building strings.
final class HotEntry: Sendable {
    /// The stored metadata as it was when the entry was kept.
    let stored: StoredEntry
    /// The facts freshness is decided on.
    let facts: ResponseFacts
    /// The body as sent, when it is held as bytes (below `fileThreshold`, or when no in-memory file
    /// could be made); empty when `file` holds it.
    let body: [UInt8]
    /// The body in an in-memory file, sent with `sendfile` (from `fileThreshold` bytes on).
    let file: MemoryFile?
    /// The body's length, wherever it is held.
    let bodyCount: Int
    /// The stored headers as replayed (framing fields dropped, `Accept-Ranges` added, and for the gzip
    /// form `Content-Encoding: gzip`), without Larder's marks.
    let headers: HTTPHeaders
    /// The callers it answers: for an entry that does not vary, `.gzip` when `body` is the stored gzip
    /// member; for one that varies on `Accept-Encoding`, the class of the callers its variant was stored
    /// for (its body is then whatever the origin sent them).
    let variant: EncodingVariant
    /// What the entry counts against the cache's budget: body, fields, and the prepared head.
    let cost: Int

    private struct Prepared {
        var age: Int64 = -1
        var ttl: Int64 = .min
        var dateSecond = -1
        var bytes: [UInt8] = []
    }

    private let prepared = Mutex(Prepared())

    /// A fixed allowance per entry for the head and the bookkeeping around it.
    static let overheadBytes = 512

    /// Bodies from this size on are held in an in-memory file and sent with `sendfile`. Below it the
    /// copy into the socket costs less than the second system call a file needs (head by `sendmsg`,
    /// content by `sendfile`); at 256 KiB the copy was a third of the server's CPU time.
    static let fileThreshold = 64 * 1024

    /// Creates an entry.
    /// - Parameters:
    ///   - stored: the stored metadata.
    ///   - facts: its freshness facts.
    ///   - body: the body in the form sent.
    ///   - headers: the replayed fields.
    ///   - variant: the callers it answers.
    init(
        stored: StoredEntry, facts: ResponseFacts, body: [UInt8], headers: HTTPHeaders,
        variant: EncodingVariant = .identity
    ) {
        self.stored = stored
        self.facts = facts
        let file = body.count >= Self.fileThreshold ? MemoryFile(bytes: body, name: "larder-hot") : nil
        self.file = file
        self.body = file == nil ? body : []
        self.bodyCount = body.count
        self.headers = headers
        self.variant = variant
        var fieldBytes = 0
        for field in headers { fieldBytes += field.name.utf8.count + field.value.utf8.count + 4 }
        // The fields are held twice: as `HTTPHeaders` and inside the prepared head.
        self.cost = body.count + 2 * fieldBytes + Self.overheadBytes
    }

    /// The serialized head (status line to `Content-Length`, without `Connection` and the empty line) for
    /// a hit at this `age` and `ttl`, built by `build` when the last one was for other values or another
    /// second of the `Date` clock.
    /// - Parameters:
    ///   - age: the `Age` to send.
    ///   - ttl: the remaining freshness for `Cache-Status`.
    ///   - build: writes a head for these values.
    /// - Returns: the head bytes.
    func preparedHead(age: Int64, ttl: Int64, build: (Int64, Int64) -> [UInt8]) -> [UInt8] {
        let dateSecond = HTTPResponse.currentDateSecond()
        if let ready = prepared.withLock({ (state: inout Prepared) -> [UInt8]? in
            state.age == age && state.ttl == ttl && state.dateSecond == dateSecond ? state.bytes : nil
        }) {
            return ready
        }
        // Built outside the lock: two connections meeting a new second each build once, nobody waits.
        let bytes = build(age, ttl)
        prepared.withLock { state in
            state = Prepared(age: age, ttl: ttl, dateSecond: dateSecond, bytes: bytes)
        }
        return bytes
    }
}

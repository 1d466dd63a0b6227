public import CacheCore
public import CachePolicy
import Dispatch
public import FoundationEssentials
import HTTPCore
import HTTPServer

/// The `/cache` admin API (DESIGN.md, "HTTP API"): list, read, inspect and delete stored entries.
///
/// | route | answer |
/// | --- | --- |
/// | `GET /cache` | a JSON page of entries, newest first (`CacheListHandler`) |
/// | `GET`, `HEAD /cache/<key>` | the stored body with its stored headers, Range and gzip (`CacheBodyHandler`) |
/// | `GET /cache/<key>/meta` | every stored field as JSON (`CacheKeyHandler.meta`) |
/// | `DELETE /cache/<key>` | 204 (`CacheKeyHandler.delete`) |
/// | `DELETE /cache` | purge all, or by `?url=`, `?tag=`, `?host=`, `?prefix=`; `soft`, `dryRun`: `{"purged": N}` (`CachePurgeHandler`) |
///
/// Every route sits behind `AdminGuard`; store work runs on the `StorageExecutor`, purges on a queue of
/// their own.
public struct CacheAPI: Sendable {
    /// The store the routes read and change.
    public let store: any CacheStore
    /// Where the store work runs.
    public let executor: StorageExecutor
    /// Where purges run, one at a time: a purge of many entries lasts seconds on purpose (short batches
    /// with room for stores between them), and on the shared executor it would hold one of its queues, and
    /// the `/fetch` lookups handed to that queue, for all of it.
    let purges = StorageExecutor(width: 1, label: "larder.purge", qos: .utility)
    /// The time source for ages and freshness.
    public let clock: @Sendable () -> Date
    /// Told when a body read fails mid-response (the entry is already gone when it was corrupt).
    public let onBodyFailure: (@Sendable (CacheKey, any Error) -> Void)?
    /// The filter chain: it canonicalizes a purge's `url` as `/fetch` would.
    public let decider: any FilterDecider
    /// Purges counted for `/metrics` (register it there).
    public let purgeMetrics: PurgeMetrics

    /// Creates the API.
    /// - Parameters:
    ///   - store: the cache store.
    ///   - executor: runs the blocking store calls.
    ///   - clock: the time source (injected so tests never sleep).
    ///   - onBodyFailure: told about body reads that fail mid-response.
    ///   - decider: the filter chain, for purges by URL.
    ///   - purgeMetrics: where purges are counted.
    public init(
        store: any CacheStore, executor: StorageExecutor, clock: @escaping @Sendable () -> Date = Date.init,
        onBodyFailure: (@Sendable (CacheKey, any Error) -> Void)? = nil,
        decider: any FilterDecider = DefaultFilterDecider(), purgeMetrics: PurgeMetrics = PurgeMetrics()
    ) {
        self.store = store
        self.executor = executor
        self.clock = clock
        self.onBodyFailure = onBodyFailure
        self.decider = decider
        self.purgeMetrics = purgeMetrics
    }

    /// The cache key of the route's `:key` segment.
    /// - Parameter context: the routed context.
    /// - Returns: the key.
    /// - Throws: `APIError.invalidKey` unless the segment is 64 lower-case hex digits.
    static func key(in context: HTTPRequestContext) throws(APIError) -> CacheKey {
        let text = context.parameters["key"] ?? ""
        // One spelling per entry: keys are written in lower case everywhere (X-Cache-Key, listings), so an
        // upper-case path is refused rather than folded into an alias of the same entry.
        guard let key = CacheKey(hex: text), key.hex == text else { throw .invalidKey(text) }
        return key
    }

    /// Answers a request for the entry the route's `:key` segment names: `work` runs on the storage executor
    /// with the key, and what it returns or throws is the answer.
    /// - Parameters:
    ///   - context: the routed context.
    ///   - writer: where the answer goes.
    ///   - work: the store work for the key.
    /// - Throws: `APIError.invalidKey`, before any work is handed over, unless the segment is a key.
    func respond(
        forKeyIn context: HTTPRequestContext, writer: HTTPResponseWriter,
        _ work: @escaping @Sendable (CacheAPI, CacheKey) throws -> HTTPResponse
    ) throws(APIError) {
        let key = try Self.key(in: context)
        executor.respond(writer) { [self] in try work(self, key) }
    }

    /// The stored entry for a key; runs on the storage executor.
    /// - Parameter key: the key.
    /// - Returns: the entry.
    /// - Throws: `APIError.notFound` when there is none, or what the store throws.
    func entry(for key: CacheKey) throws -> StoredEntry {
        guard let entry = try store.entry(for: key) else { throw APIError.notFound(key) }
        return entry
    }

    /// The request's query parameters, each allowed name at most once and none empty.
    /// - Parameters:
    ///   - request: the request.
    ///   - allowed: the names the endpoint knows.
    /// - Returns: the values by name.
    /// - Throws: `APIError.badQuery` for an unknown, repeated or empty parameter: an operator's typo
    ///   (`?hots=`) must not silently widen a purge to everything.
    static func query(of request: HTTPRequest, allowed: Set<String>) throws(APIError) -> [String: String] {
        try parameters(of: request, allowed: allowed).single
    }

    /// The request's query parameters: each allowed name at most once, but `repeatable` ones, which are
    /// gathered in order, repeats included (a bound on how many may be given counts each; `tags` then keeps
    /// each once); none empty.
    /// - Parameters:
    ///   - request: the request.
    ///   - allowed: the names the endpoint knows, `repeatable` ones included.
    ///   - repeatable: the names that may be given several times (`tag`).
    /// - Returns: the single values by name, and the lists of the repeatable ones.
    /// - Throws: `APIError.badQuery` for an unknown, repeated or empty parameter.
    static func parameters(
        of request: HTTPRequest, allowed: Set<String>, repeatable: Set<String> = []
    ) throws(APIError) -> (single: [String: String], lists: [String: [String]]) {
        var values: [String: String] = [:]
        var lists: [String: [String]] = [:]
        for (name, value) in request.queryParameters {
            guard allowed.contains(name) else {
                throw .badQuery("unknown parameter '\(name.prefix(50))'; this endpoint takes \(allowed.sorted()).")
            }
            guard !value.isEmpty else { throw .badQuery("parameter '\(name)' is empty.") }
            if repeatable.contains(name) {
                // Repeats are kept: a bound on how many may be given counts each (`tags` drops them).
                lists[name, default: []].append(value)
                continue
            }
            guard values[name] == nil else { throw .badQuery("parameter '\(name)' is given more than once.") }
            values[name] = value
        }
        return (values, lists)
    }

    /// The `tag` parameters of a request's query, checked (`EntryTags.isValid`, at most as many as an entry
    /// can carry, `EntryTags.maxCount`, repeats counted as the contract's `maxItems` counts them).
    /// - Parameter tags: the values given.
    /// - Returns: them, each once, in the order first given.
    /// - Throws: `APIError.badQuery` for a value that cannot be a tag, or too many.
    static func tags(_ tags: [String]) throws(APIError) -> [String] {
        for tag in tags where !EntryTags.isValid(tag) {
            throw .badQuery(
                "tag '\(tag.prefix(50))' is not a tag (1 to \(EntryTags.maxBytes) printable ASCII characters, no "
                    + "space or comma).")
        }
        guard tags.count <= EntryTags.maxCount else {
            throw .badQuery("more than \(EntryTags.maxCount) tag parameters.")
        }
        var unique: [String] = []
        for tag in tags where !unique.contains(tag) { unique.append(tag) }
        return unique
    }

    /// A JSON response with `Cache-Control: no-store` (admin answers describe a changing store).
    static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "no-store")]),
            body: .bytes(Array(text.utf8)))
    }
}

public import CacheCore
public import Foundation
import Synchronization

/// A `CacheStore` that forwards to another and, on every call (body reads included), evaluates a probe
/// and records the calls where it failed: tests pass "am I on the storage executor?" to prove that no
/// store work runs on a connection queue. Body writes (`beginWrite` and the writer's calls) go to
/// `onWrite` instead, so that a test can see, or slow down, where they run.
public final class APIRecordingStore: CacheStore {
    private let wrapped: any CacheStore
    private let probe: @Sendable () -> Bool
    private let onWrite: @Sendable (_ call: String) -> Void
    private let log = Mutex<(calls: Int, violations: [String])>((0, []))

    /// Wraps a store.
    /// - Parameters:
    ///   - wrapped: the store that does the work.
    ///   - probe: returns `true` when the current thread is an acceptable place for store work.
    ///   - onWrite: called before each body write call (`beginWrite`, `append`, `commit`, `abandon`).
    public init(
        wrapping wrapped: any CacheStore, probe: @escaping @Sendable () -> Bool = { true },
        onWrite: @escaping @Sendable (_ call: String) -> Void = { _ in }
    ) {
        self.wrapped = wrapped
        self.probe = probe
        self.onWrite = onWrite
    }

    /// How many store and reader calls were made.
    public var calls: Int { log.withLock { $0.calls } }
    /// The names of the calls made where the probe failed.
    public var violations: [String] { log.withLock { $0.violations } }

    private func check(_ name: String) {
        let fine = probe()
        log.withLock {
            $0.calls += 1
            if !fine { $0.violations.append(name) }
        }
    }

    public func entry(for key: CacheKey) throws -> StoredEntry? {
        check("entry")
        return try wrapped.entry(for: key)
    }

    public func varyNames(forPrimaryKey primaryKey: CacheKey) throws -> [String]? {
        check("varyNames")
        return try wrapped.varyNames(forPrimaryKey: primaryKey)
    }

    /// Forwarded unchecked: it is answered from memory, on a connection's queue by design.
    public func mayHold(primaryKey: CacheKey) -> Bool {
        wrapped.mayHold(primaryKey: primaryKey)
    }

    public func openBody(of entry: StoredEntry, form: CacheBodyForm) throws -> any CacheBodyReader {
        check("openBody")
        return APIRecordingBody(try wrapped.openBody(of: entry, form: form)) { [self] in check($0) }
    }

    public func beginWrite(hints: CacheBodyHints) throws -> any CacheBodyWriter {
        onWrite("beginWrite")
        return APIRecordingBody(try wrapped.beginWrite(hints: hints), report: onWrite)
    }

    public func updateMetadata(_ entry: StoredEntry) throws -> Bool {
        check("updateMetadata")
        return try wrapped.updateMetadata(entry)
    }

    public func recordHits(_ key: CacheKey, count: Int, at now: Date) {
        wrapped.recordHits(key, count: count, at: now)
    }

    public func delete(_ key: CacheKey) throws -> Bool {
        check("delete")
        return try wrapped.delete(key)
    }

    @discardableResult
    public func delete(_ entry: StoredEntry) throws -> Bool {
        check("delete")
        return try wrapped.delete(entry)
    }

    @discardableResult
    public func purge(_ scope: CachePurgeScope, soft: Bool) throws -> Int {
        check("purge")
        return try wrapped.purge(scope, soft: soft)
    }

    public func previewPurge(_ scope: CachePurgeScope, soft: Bool, limit: Int) throws -> CachePurgePreview {
        check("previewPurge")
        return try wrapped.previewPurge(scope, soft: soft, limit: limit)
    }

    public func list(_ query: CacheEntryQuery) throws -> CacheEntryPage {
        check("list")
        return try wrapped.list(query)
    }
}

/// A body reader or writer that reports each call before forwarding it: a reader's `next()` to its store's
/// probe (`check`), a writer's calls to the store's `onWrite`. One forwarding type for both, so that the
/// two kinds of body call are recorded the same way.
final class APIRecordingBody<Wrapped: Sendable>: Sendable {
    private let wrapped: Wrapped
    private let report: @Sendable (_ call: String) -> Void

    init(_ wrapped: Wrapped, report: @escaping @Sendable (_ call: String) -> Void) {
        self.wrapped = wrapped
        self.report = report
    }
}

extension APIRecordingBody: CacheBodyReader where Wrapped == any CacheBodyReader {
    var length: Int { wrapped.length }

    func next() throws -> [UInt8]? {
        report("reader.next")
        return try wrapped.next()
    }
}

extension APIRecordingBody: CacheBodyWriter where Wrapped == any CacheBodyWriter {
    func append(_ bytes: [UInt8]) throws {
        report("append")
        try wrapped.append(bytes)
    }

    func commit(_ entry: StoredEntry) throws -> StoredEntry {
        report("commit")
        return try wrapped.commit(entry)
    }

    func commit(_ entry: StoredEntry, completion: @escaping @Sendable (Result<StoredEntry, any Error>) -> Void) {
        report("commit")
        wrapped.commit(entry, completion: completion)
    }

    func abandon() {
        report("abandon")
        wrapped.abandon()
    }
}

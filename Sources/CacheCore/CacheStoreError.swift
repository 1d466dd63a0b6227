/// What can go wrong in a `CacheStore`, in terms an upper layer can act on.
public enum CacheStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No such entry (or it was replaced or deleted while in use): treat as a miss.
    case notFound(CacheKey)
    /// A stored body failed its checks (CRC, length, inflate); the entry has been deleted: treat as
    /// a miss and refetch.
    case corruptEntryDeleted(key: CacheKey, reason: String)
    /// The disk or database is full (SQLITE_FULL); storing should pause, serving may go on.
    case storageFull(detail: String)
    /// The storage failed (I/O, a database error); `operation` says what was attempted.
    case storageFailure(operation: String, detail: String)
    /// The database was written by a newer Larder, whose schema this one does not know.
    case unsupportedSchema(found: Int, supported: Int)
    /// The gzip form was asked of a body that is not stored deflated.
    case formUnavailable
    /// The range does not lie within the body.
    case invalidRange(Range<Int>, length: Int)
    /// The list cursor is not one this store produced.
    case invalidCursor(String)
    /// The writer was already committed or abandoned.
    case writerClosed
    /// The filter chain changed since the version the caller read.
    case versionConflict(current: Int)
    /// Two filters in one chain share a name.
    case duplicateFilterName(String)

    public var description: String {
        switch self {
        case .notFound(let key): "no entry \(key)"
        case .corruptEntryDeleted(let key, let reason): "entry \(key) was corrupt (\(reason)) and was deleted"
        case .storageFull(let detail): "storage full: \(detail)"
        case .storageFailure(let operation, let detail): "storage failure in \(operation): \(detail)"
        case .unsupportedSchema(let found, let supported):
            "database schema version \(found) is newer than the supported \(supported); use a newer Larder"
        case .formUnavailable: "the body is not stored in that form"
        case .invalidRange(let range, let length): "range \(range) outside a body of \(length) bytes"
        case .invalidCursor(let cursor): "invalid cursor \(cursor)"
        case .writerClosed: "the body writer is already closed"
        case .versionConflict(let current): "the filter chain is now at version \(current)"
        case .duplicateFilterName(let name): "duplicate filter name \(name)"
        }
    }
}

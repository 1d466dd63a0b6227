internal import HTTPCore

/// Why a change to the filter chain was refused, or why the stored chain could not be loaded.
public enum FilterChainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The caller's precondition (`If-Match`) does not hold for the current version (412).
    case preconditionFailed(currentVersion: Int)
    /// A filter with this name already exists (409).
    case duplicateName(String)
    /// No filter has this name (404).
    case notFound(String)
    /// `before` names no filter (404).
    case beforeNotFound(String)
    /// A stored filter no longer decodes; the process should not guess what the operator meant.
    case corruptRecord(name: String, FilterDefinitionError)

    /// What went wrong, for logs and problem details.
    public var description: String {
        switch self {
        case .preconditionFailed(let version): "the filter chain is at version \(version)"
        case .duplicateName(let name): "a filter named \(name.jsonQuotedPrefix) already exists"
        case .notFound(let name): "no filter is named \(name.jsonQuotedPrefix)"
        case .beforeNotFound(let name): "before=\(name.jsonQuotedPrefix) names no filter"
        case .corruptRecord(let name, let error): "stored filter \(name.jsonQuotedPrefix) does not decode: \(error)"
        }
    }
}

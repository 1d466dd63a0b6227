/// What happens to a request no filter owns (DESIGN.md, "Filters"; `--default-policy`).
public enum FilterDefaultPolicy: String, Sendable, Equatable, CaseIterable {
    /// Plain RFC 9111 shared-cache rules.
    case http
    /// Fetch, never store.
    case bypass

    /// The decision for requests no filter owns.
    public var decision: FilterDecision {
        switch self {
        case .http: .defaultHTTP
        case .bypass: .defaultBypass
        }
    }
}

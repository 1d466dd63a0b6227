/// A request condition of a filter, as `/filters/explain` names the one that failed.
public enum FilterCondition: Sendable, Equatable, CustomStringConvertible {
    /// The filter is disabled.
    case disabled
    /// `match.schemes`.
    case scheme
    /// `match.hosts`.
    case host
    /// `match.extensions`.
    case `extension`
    /// `match.pathPrefix`.
    case pathPrefix
    /// `match.methods`.
    case method
    /// `match.headers`, for the named field.
    case header(String)

    /// The stable name: `disabled`, `scheme`, `host`, `extension`, `pathPrefix`, `method` or `header <Name>`.
    public var description: String {
        switch self {
        case .disabled: "disabled"
        case .scheme: "scheme"
        case .host: "host"
        case .extension: "extension"
        case .pathPrefix: "pathPrefix"
        case .method: "method"
        case .header(let name): "header \(name)"
        }
    }
}

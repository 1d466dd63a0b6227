/// The filter chain declared in a file, for deployments kept in git (Kubernetes, Ansible, compose).
public struct FiltersSettings: SettingGroup {
    /// How a filters file meets the chain stored in the database.
    public enum Mode: String, Sendable, CaseIterable {
        /// The file is loaded only into a new database; after that the API owns the chain.
        case seed
        /// The file is the chain on every start, and the API may not change it (409).
        case replace
    }

    /// How help and the README title this group.
    public static let title = "Filters"

    @Setting(
        "filters-file", default: "", .optionalText("path"),
        help: "JSON file holding a filter chain, as PUT /filters takes it; an invalid one stops serve naming the field."
    )
    public var file: String?
    @Setting(
        "filters-mode", default: "seed", .choice("mode"),
        help:
            "seed: the file fills a new database only; replace: the file is the chain at every start and API changes to it answer 409."
    )
    public var mode: Mode

    /// The defaults outside a resolution; see `SettingGroup.resolve(flags:environment:)`.
    public init() {}
}

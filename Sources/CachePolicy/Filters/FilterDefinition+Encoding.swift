internal import HTTPCore

extension FilterDefinition {
    /// The definition as compact JSON with keys in a fixed order (name, enabled, match, action, then the
    /// response, freshness and key fields as DESIGN.md lists them) and defaults left out, so the same
    /// filter always reads the same in `GET /filters` and in storage. `enabled` and `action` are always
    /// written, since a reader should not have to know their defaults.
    public var canonicalJSON: String { jsonValue.text }

    /// The chain as `GET /filters` answers it: `{"version":N,"filters":[...]}`.
    ///
    /// - Parameters:
    ///   - filters: The filters in order.
    ///   - version: The chain's version.
    /// - Returns: Compact JSON text.
    public static func chainJSON(_ filters: [FilterDefinition], version: Int) -> String {
        FilterJSON.object([
            ("version", .number(String(version))), ("filters", .array(filters.map(\.jsonValue))),
        ]).text
    }

    var jsonValue: FilterJSON {
        var members: [(name: String, value: FilterJSON)] = [("name", .string(name)), ("enabled", .bool(enabled))]
        members.append(("match", match.jsonValue))
        members.append(("action", .string(action.rawValue)))
        if !contentTypes.isEmpty { members.append(("contentTypes", .array(contentTypes.map { .string($0) }))) }
        if let maxBytes { members.append(("maxBytes", .number(String(maxBytes)))) }
        if validateImage { members.append(("validate", .string("image"))) }
        if allowSVG { members.append(("allowSVG", .bool(true))) }
        for (key, seconds) in PolicyOverrides.filterMembers {
            if let value = overrides[keyPath: seconds] { members.append((key, .number(String(value)))) }
        }
        if ignoreQuery { members.append(("ignoreQuery", .bool(true))) }
        if !dropParams.isEmpty { members.append(("dropParams", .array(dropParams.map { .string($0) }))) }
        if ignoreNoStore { members.append(("ignoreNoStore", .bool(true))) }
        if fetchCanonicalURL { members.append(("fetchCanonicalURL", .bool(true))) }
        if !tags.isEmpty { members.append(("tags", .array(tags.map { .string($0) }))) }
        return .object(members)
    }
}

extension FilterDefinition.Match {
    var jsonValue: FilterJSON {
        var members: [(name: String, value: FilterJSON)] = []
        if !schemes.isEmpty { members.append(("schemes", .array(schemes.map { .string($0) }))) }
        if !hosts.isEmpty { members.append(("hosts", .array(hosts.map { .string($0) }))) }
        if !extensions.isEmpty { members.append(("extensions", .array(extensions.map { .string($0) }))) }
        if let pathPrefix { members.append(("pathPrefix", .string(pathPrefix))) }
        if !methods.isEmpty { members.append(("methods", .array(methods.map { .string($0) }))) }
        if !headers.isEmpty {
            members.append(
                ("headers", .object(headers.map { ($0.name, .object([($0.comparison.rawValue, .string($0.value))])) })))
        }
        return .object(members)
    }
}

internal import HTTPCore

extension FilterDefinition {
    /// The longest duration a filter may set, in seconds (ten years).
    public static let maximumSeconds: Int64 = 315_360_000
    /// The largest `maxBytes`, in bytes (1 TiB).
    public static let maximumBytes = 1 << 40
    /// The most entries any list in a filter may hold.
    public static let maximumListCount = 64
    /// Names no filter may take, because a route uses them (`/filters/explain`, `/filters/defaults`).
    public static let reservedNames: Set<String> = ["explain", "defaults"]

    /// Decodes one filter from JSON text, strictly: unknown fields, wrong types, out-of-range values and
    /// bad names are errors naming the field's path.
    ///
    /// - Parameters:
    ///   - json: UTF-8 JSON text holding one object.
    ///   - path: The path of the object in the document (`filters[2]`), or empty for a top-level object.
    ///   - defaultName: The name used when the object has none (`PUT /filters/<name>`).
    /// - Returns: The definition.
    /// - Throws: `FilterDefinitionError` for the first problem found.
    public static func decode(
        json: [UInt8], path: String = "", defaultName: String? = nil
    ) throws(FilterDefinitionError) -> FilterDefinition {
        try decode(FilterJSON.parse(json), path: path, defaultName: defaultName)
    }

    /// Decodes a whole chain: either `{"filters": [...]}` (the shape `GET /filters` answers; a
    /// `version` member is allowed and ignored) or a bare array. Names must be unique.
    ///
    /// - Parameter json: UTF-8 JSON text.
    /// - Returns: The definitions in order.
    /// - Throws: `FilterDefinitionError` with paths such as `filters[2].match.hosts[0]`.
    public static func decodeList(json: [UInt8]) throws(FilterDefinitionError) -> [FilterDefinition] {
        let document = try FilterJSON.parse(json)
        let list: FilterJSON
        switch document {
        case .array:
            list = document
        case .object:
            var reader = try FilterObjectReader(document, path: "")
            _ = try reader.integer("version", in: 0...Int64.max)
            guard let filters = reader.take("filters") else {
                throw FilterDefinitionError(path: "filters", message: "is required")
            }
            try reader.finish()
            list = filters
        default:
            throw FilterDefinitionError(
                path: "$", message: "must be an object with \"filters\" or an array, not \(document.typeName)")
        }
        guard case .array(let items) = list else {
            throw FilterDefinitionError(path: "filters", message: "must be an array, not \(list.typeName)")
        }
        var definitions: [FilterDefinition] = []
        for (index, item) in items.enumerated() {
            let definition = try decode(item, path: "filters[\(index)]", defaultName: nil)
            if definitions.contains(where: { $0.name == definition.name }) {
                throw FilterDefinitionError(
                    path: "filters[\(index)].name", message: "duplicate name \(definition.name.jsonQuotedPrefix)")
            }
            definitions.append(definition)
        }
        return definitions
    }

    static func decode(
        _ value: FilterJSON, path: String, defaultName: String?
    ) throws(FilterDefinitionError) -> FilterDefinition {
        var reader = try FilterObjectReader(value, path: path)
        let name: String
        if let given = try reader.string("name") {
            name = given
        } else if let defaultName {
            name = defaultName
        } else {
            throw FilterDefinitionError(path: reader.path("name"), message: "is required")
        }
        try validateName(name, path: reader.path("name"))
        var definition = FilterDefinition(name: name)
        definition.enabled = try reader.bool("enabled") ?? true
        if let match = reader.take("match") { definition.match = try decodeMatch(match, path: reader.path("match")) }
        if let action = try reader.string("action") {
            guard let parsed = FilterDecision.Action(rawValue: action) else {
                throw FilterDefinitionError(
                    path: reader.path("action"), message: "must be \"cache\", \"bypass\" or \"deny\"")
            }
            definition.action = parsed
        }
        definition.contentTypes = try reader.strings("contentTypes", lowercased: true, validate: validateMediaRange)
        definition.maxBytes = try reader.integer("maxBytes", in: 1...Int64(maximumBytes)).map { Int($0) }
        if let validate = try reader.string("validate") {
            guard validate == "image" else {
                throw FilterDefinitionError(path: reader.path("validate"), message: "must be \"image\"")
            }
            definition.validateImage = true
        }
        definition.allowSVG = try reader.bool("allowSVG") ?? false
        for (key, seconds) in PolicyOverrides.filterMembers {
            definition.overrides[keyPath: seconds] = try reader.integer(key, in: 0...maximumSeconds)
        }
        if let minTtl = definition.overrides.minTtl, let maxTtl = definition.overrides.maxTtl, minTtl > maxTtl {
            throw FilterDefinitionError(
                path: reader.path("maxTtl"), message: "must not be less than minTtl (\(minTtl))")
        }
        definition.ignoreQuery = try reader.bool("ignoreQuery") ?? false
        definition.dropParams = try reader.strings("dropParams", lowercased: false) {
            text, path throws(FilterDefinitionError) in
            guard text.utf8.count <= 128 else {
                throw FilterDefinitionError(path: path, message: "is longer than 128 bytes")
            }
        }
        definition.ignoreNoStore = try reader.bool("ignoreNoStore") ?? false
        definition.fetchCanonicalURL = try reader.bool("fetchCanonicalURL") ?? false
        definition.tags = try reader.strings("tags", lowercased: false) { text, path throws(FilterDefinitionError) in
            guard EntryTags.isValid(text) else {
                throw FilterDefinitionError(
                    path: path,
                    message: "must be 1 to \(EntryTags.maxBytes) printable ASCII characters without spaces or commas")
            }
        }
        try reader.finish()
        return definition
    }

    /// Checks a filter name: 1 to 64 of `A-Z a-z 0-9 . _ -`, not reserved.
    ///
    /// - Parameters:
    ///   - name: The candidate.
    ///   - path: The field's path, for the error.
    /// - Throws: `FilterDefinitionError` saying what is wrong.
    public static func validateName(_ name: String, path: String = "name") throws(FilterDefinitionError) {
        guard !name.isEmpty else { throw FilterDefinitionError(path: path, message: "must not be empty") }
        guard name.utf8.count <= 64 else {
            throw FilterDefinitionError(path: path, message: "is longer than 64 characters")
        }
        let allowed = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        guard allowed else {
            throw FilterDefinitionError(
                path: path, message: "may hold only A-Z a-z 0-9 . _ - (got \(name.jsonQuotedPrefix))")
        }
        guard !reservedNames.contains(name) else {
            throw FilterDefinitionError(path: path, message: "\(name.jsonQuoted) is reserved")
        }
    }

    private static func decodeMatch(_ value: FilterJSON, path: String) throws(FilterDefinitionError) -> Match {
        var reader = try FilterObjectReader(value, path: path)
        var match = Match()
        match.schemes = try reader.strings("schemes", lowercased: true) { text, path throws(FilterDefinitionError) in
            guard text == "http" || text == "https" else {
                throw FilterDefinitionError(path: path, message: "must be \"http\" or \"https\"")
            }
        }
        match.hosts = try reader.strings("hosts", lowercased: true) { text, path throws(FilterDefinitionError) in
            guard text.utf8.count <= 255, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") })
            else { throw FilterDefinitionError(path: path, message: "must be an ASCII host glob of at most 255 bytes") }
        }
        match.extensions = try reader.strings("extensions", lowercased: true) {
            text, path throws(FilterDefinitionError) in
            let valid =
                text.utf8.count <= 16
                && text.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                }
            guard valid else {
                throw FilterDefinitionError(
                    path: path, message: "must be letters and digits without the dot, at most 16")
            }
        }
        match.methods = try reader.strings("methods", lowercased: false) { text, path throws(FilterDefinitionError) in
            // Methods are case-sensitive tokens (RFC 9110 §9.1): `get` is not GET, and stays as written.
            guard text.utf8.count <= 32, HTTPToken.isValid(text) else {
                throw FilterDefinitionError(
                    path: path, message: "must be a method token such as \"GET\" (RFC 9110 §9.1), at most 32 bytes")
            }
        }
        if let prefix = try reader.string("pathPrefix") {
            guard prefix.hasPrefix("/"), prefix.utf8.count <= 2048 else {
                throw FilterDefinitionError(
                    path: reader.path("pathPrefix"), message: "must start with \"/\" (at most 2048 bytes)")
            }
            match.pathPrefix = prefix
        }
        if let headers = reader.take("headers") {
            match.headers = try decodeHeaders(headers, path: reader.path("headers"))
        }
        try reader.finish()
        return match
    }

    private static func decodeHeaders(
        _ value: FilterJSON, path: String
    ) throws(FilterDefinitionError) -> [HeaderCondition] {
        guard case .object(let members) = value else {
            throw FilterDefinitionError(path: path, message: "must be an object, not \(value.typeName)")
        }
        guard members.count <= maximumListCount else {
            throw FilterDefinitionError(path: path, message: "has more than \(maximumListCount) members")
        }
        var conditions: [HeaderCondition] = []
        for member in members {
            let fieldPath = path + "." + member.name
            guard HTTPToken.isValid(member.name) else {
                throw FilterDefinitionError(path: fieldPath, message: "is not a header field name (RFC 9110 §5.1)")
            }
            guard !conditions.contains(where: { $0.name.lowercased() == member.name.lowercased() }) else {
                throw FilterDefinitionError(path: fieldPath, message: "names the same field as another member")
            }
            guard case .object(let comparisons) = member.value, comparisons.count == 1, let only = comparisons.first
            else {
                throw FilterDefinitionError(
                    path: fieldPath,
                    message: "must be an object with exactly one of \"contains\", \"equals\", \"prefix\"")
            }
            let comparisonPath = fieldPath + "." + only.name
            guard let comparison = HeaderComparison(rawValue: only.name) else {
                throw FilterDefinitionError(
                    path: comparisonPath, message: "is not a field; expected \"contains\", \"equals\" or \"prefix\"")
            }
            guard case .string(let text) = only.value else {
                throw FilterDefinitionError(
                    path: comparisonPath, message: "must be a string, not \(only.value.typeName)")
            }
            guard text.utf8.count <= 1024 else {
                throw FilterDefinitionError(path: comparisonPath, message: "is longer than 1024 bytes")
            }
            conditions.append(HeaderCondition(name: member.name, comparison: comparison, value: text))
        }
        return conditions
    }

    /// `type/subtype`, `type/*` or `*/*`, each part a token (RFC 9110 §8.3.1).
    private static func validateMediaRange(_ text: String, path: String) throws(FilterDefinitionError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let valid =
            parts.count == 2 && parts.allSatisfy(HTTPToken.isValid)
            && (parts[0] != "*" || parts[1] == "*")
        guard valid else {
            throw FilterDefinitionError(
                path: path, message: "must be a media range such as \"image/*\" or \"text/html\"")
        }
    }
}

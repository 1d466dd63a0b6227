/// Reads the members of one JSON object for filter decoding: each member is taken at most once, and
/// ``finish()`` refuses whatever was not taken, so an unknown or misspelt field is an error that
/// names its path.
struct FilterObjectReader {
    private var members: [(name: String, value: FilterJSON)]
    private let base: String

    /// - Throws: `FilterDefinitionError` when `value` is not an object.
    init(_ value: FilterJSON, path: String) throws(FilterDefinitionError) {
        guard case .object(let members) = value else {
            throw FilterDefinitionError(
                path: path.isEmpty ? "$" : path, message: "must be an object, not \(value.typeName)")
        }
        self.members = members
        self.base = path
    }

    /// The path of a member of this object.
    func path(_ name: String) -> String { base.isEmpty ? name : base + "." + name }

    /// Removes and returns a member; `nil` when absent (an explicit `null` counts as absent).
    mutating func take(_ name: String) -> FilterJSON? {
        guard let index = members.firstIndex(where: { $0.name == name }) else { return nil }
        let value = members.remove(at: index).value
        return value == .null ? nil : value
    }

    mutating func string(_ name: String) throws(FilterDefinitionError) -> String? {
        guard let value = take(name) else { return nil }
        guard case .string(let text) = value else {
            throw FilterDefinitionError(path: path(name), message: "must be a string, not \(value.typeName)")
        }
        return text
    }

    mutating func bool(_ name: String) throws(FilterDefinitionError) -> Bool? {
        guard let value = take(name) else { return nil }
        guard case .bool(let flag) = value else {
            throw FilterDefinitionError(path: path(name), message: "must be true or false, not \(value.typeName)")
        }
        return flag
    }

    mutating func integer(_ name: String, in range: ClosedRange<Int64>) throws(FilterDefinitionError) -> Int64? {
        guard let value = take(name) else { return nil }
        guard case .number(let text) = value else {
            throw FilterDefinitionError(path: path(name), message: "must be an integer, not \(value.typeName)")
        }
        guard let number = Int64(text) else {
            throw FilterDefinitionError(
                path: path(name), message: "must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        guard range.contains(number) else {
            throw FilterDefinitionError(
                path: path(name), message: "must be in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// A non-empty array of strings, each checked by `validate` with its own path (`hosts[1]`).
    mutating func strings(
        _ name: String, lowercased: Bool,
        validate: (String, String) throws(FilterDefinitionError) -> Void = { _, _ in }
    ) throws(FilterDefinitionError) -> [String] {
        guard let value = take(name) else { return [] }
        guard case .array(let items) = value else {
            throw FilterDefinitionError(path: path(name), message: "must be an array of strings, not \(value.typeName)")
        }
        guard !items.isEmpty else {
            throw FilterDefinitionError(path: path(name), message: "must not be empty (leave it out to match any)")
        }
        guard items.count <= FilterDefinition.maximumListCount else {
            throw FilterDefinitionError(
                path: path(name), message: "has more than \(FilterDefinition.maximumListCount) items")
        }
        var texts: [String] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(path(name))[\(index)]"
            guard case .string(let raw) = item else {
                throw FilterDefinitionError(path: itemPath, message: "must be a string, not \(item.typeName)")
            }
            guard !raw.isEmpty else { throw FilterDefinitionError(path: itemPath, message: "must not be empty") }
            let text = lowercased ? raw.lowercased() : raw
            try validate(text, itemPath)
            if !texts.contains(text) { texts.append(text) }
        }
        return texts
    }

    /// Refuses any member not taken.
    func finish() throws(FilterDefinitionError) {
        if let unknown = members.first {
            throw FilterDefinitionError(path: path(unknown.name), message: "is not a known field")
        }
    }
}

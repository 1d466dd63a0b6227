import FoundationEssentials

/// Larder's version, written in one place: `info.version` of `openapi.yaml`, the contract the binary
/// embeds and serves. `larder --version`, `larder version`, `larder_build_info` and `CHANGELOG.md`'s
/// newest heading all say this value (tests compare them).
public enum LarderVersion {
    /// The version, e.g. `0.1.0`; `unknown` if the embedded document had no `info.version` (a test
    /// keeps that from shipping).
    public static let current: String = infoVersion(in: OpenAPIResponder.document) ?? "unknown"

    /// The `version` member of the top-level `info` mapping of an OpenAPI YAML document, read line by
    /// line: the document is ours and plain block style, so a YAML parser is not needed for one scalar.
    /// - Parameter document: the document's bytes.
    /// - Returns: the version text, unquoted; `nil` when there is none.
    static func infoVersion(in document: [UInt8]) -> String? {
        var inInfo = false
        for line in String(decoding: document, as: UTF8.self).split(separator: "\n") {
            if !line.hasPrefix(" ") {
                inInfo = line.hasPrefix("info:")
                continue
            }
            guard inInfo, line.hasPrefix("  version:") else { continue }
            var value = line.dropFirst("  version:".count)
            while let first = value.first, Self.isQuoteOrSpace(first) { value = value.dropFirst() }
            while let last = value.last, Self.isQuoteOrSpace(last) { value = value.dropLast() }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    private static func isQuoteOrSpace(_ character: Character) -> Bool {
        character == " " || character == "'" || character == "\""
    }
}

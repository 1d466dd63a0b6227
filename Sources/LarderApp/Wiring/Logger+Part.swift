public import Logging

extension Logger {
    /// The metadata key that names the part of Larder a line comes from; `serve`'s log handlers print its
    /// value as the line's label (`larder.audit: …`).
    public static let partLabelKey = "label"

    /// A logger for one part of Larder, derived from this one: the same handler, level and metadata, so a
    /// test's recorder sees its lines too, labelled `label` through `partLabelKey`.
    /// - Parameter label: the part's label (`larder.audit`, `larder.cache`, `larder.access`).
    /// - Returns: the logger.
    public func part(_ label: String) -> Logger {
        var child = self
        child[metadataKey: Self.partLabelKey] = .string(label)
        return child
    }
}

import CacheCore
import CachePolicy
import HTTPCore

extension FetchConfiguration {
    /// Removes the tag fields from a response relayed or stored for callers, unless `forwardTagHeaders`.
    /// - Parameter headers: the fields.
    func hideTagFields(_ headers: inout HTTPHeaders) {
        guard !forwardTagHeaders, EntryTags.fieldNames.contains(where: headers.contains) else { return }
        headers.remove(names: EntryTags.fieldNames)
    }
}

import CacheCore
import CachePolicy
import HTTPCore

extension FetchService {
    /// Gives an entry about to be stored its tags: the origin's `Surrogate-Key` and `Cache-Tag` fields and
    /// the owning filter's `tags`, bounded (`EntryTags`; what is dropped is counted in
    /// `larder_tags_dropped_total`). The tag fields leave the stored headers unless `forwardTagHeaders`.
    /// - Parameters:
    ///   - entry: the entry, its headers as they will be stored.
    ///   - responseHeaders: the origin's response fields.
    ///   - filterTags: the owning filter's tags.
    func tag(_ entry: inout StoredEntry, responseHeaders: HTTPHeaders, filterTags: [String]) {
        let tags = EntryTags(headers: responseHeaders, filterTags: filterTags)
        entry.tags = tags.tags
        if tags.dropped > 0 { metrics.tagsDropped(tags.dropped) }
        hideTagFields(&entry.headers)
    }

    /// Removes the tag fields from a response relayed or stored for callers, unless `forwardTagHeaders`.
    /// - Parameter headers: the fields.
    func hideTagFields(_ headers: inout HTTPHeaders) {
        guard !configuration.forwardTagHeaders, headers.contains("Surrogate-Key") || headers.contains("Cache-Tag")
        else { return }
        headers.remove(names: ["Surrogate-Key", "Cache-Tag"])
    }
}

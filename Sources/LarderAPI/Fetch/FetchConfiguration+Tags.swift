import CacheCore
import CachePolicy
import HTTPCore

extension FetchConfiguration {
    /// Removes the tag fields from a response relayed or stored for callers, unless `forwardTagHeaders`.
    /// - Parameter headers: the fields.
    func hideTagFields(_ headers: inout HTTPHeaders) {
        guard !forwardTagHeaders, headers.contains("Surrogate-Key") || headers.contains("Cache-Tag") else { return }
        headers.remove(names: ["Surrogate-Key", "Cache-Tag"])
    }
}

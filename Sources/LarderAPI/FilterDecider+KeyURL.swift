import CachePolicy
import HTTPCore

extension FilterDecider {
    /// The URL a GET of `text` is keyed by: `canonical` (its default-options form) canonicalized again with
    /// the owning filter's options (`ignoreQuery`, `dropParams`), the filter chosen with `headers` as a
    /// `/fetch` GET carrying them would choose it. What purges by URL and unsafe-method invalidations select.
    /// - Parameters:
    ///   - canonical: `text` canonicalized with default options.
    ///   - text: the URL as given.
    ///   - headers: the caller's request fields.
    /// - Returns: the key URL.
    func keyURL(of canonical: CanonicalURL, text: String, headers: HTTPHeaders) -> String {
        decide(url: canonical, method: .get, headers: headers).keyedURL(for: text) ?? canonical.string
    }
}

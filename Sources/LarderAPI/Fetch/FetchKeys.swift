import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import HTTPServer

/// The cache key and policy facts `/fetch` derives from requests and stored entries, in one place so
/// that lookups and stores agree.
enum FetchKeys {
    /// The key of a request for a URL whose stored responses vary on `varyNames` (RFC 9111 §4.1): the
    /// primary key when there are none, else the secondary key of `Vary.keyPairs`.
    /// - Parameters:
    ///   - canonicalURL: the canonical URL.
    ///   - varyNames: the lower-cased names the stored response's `Vary` lists.
    ///   - requestHeaders: the request's headers.
    /// - Returns: the key.
    static func key(canonicalURL: String, varyNames: [String], requestHeaders: HTTPHeaders) -> CacheKey {
        guard !varyNames.isEmpty else { return CacheKey.make(canonicalURL: canonicalURL) }
        let pairs = Vary.keyPairs(names: varyNames, requestHeaders: requestHeaders)
        return CacheKey.make(canonicalURL: canonicalURL, varyingHeaders: pairs.map { ($0.name, $0.value) })
    }

    /// The RFC 9111 facts of a stored entry (its clock readings in whole seconds).
    /// - Parameter entry: the entry.
    /// - Returns: the facts the serving rules read.
    static func facts(of entry: StoredEntry) -> ResponseFacts {
        ResponseFacts(
            requestMethod: .get, status: entry.status.code, headers: entry.headers,
            requestTime: Int64(entry.requestTime.timeIntervalSince1970.rounded(.down)),
            responseTime: Int64(entry.responseTime.timeIntervalSince1970.rounded(.down)),
            staleSince: entry.staleSince.map { Int64($0.timeIntervalSince1970.rounded(.down)) })
    }
}

import CCurl

/// Owns a `curl_slist` of request header lines (https://curl.se/libcurl/c/curl_slist_append.html).
final class CurlHeaderList {
    /// The list head, `nil` when empty; valid for the life of this object.
    private(set) var list: UnsafeMutablePointer<curl_slist>?

    /// Builds the list from raw lines (`Name: value`, `Name;` for an empty value, `Name:` to suppress).
    init(lines: [String]) {
        for line in lines {
            guard let appended = curl_slist_append(list, line) else { continue }
            list = appended
        }
    }

    deinit { curl_slist_free_all(list) }
}

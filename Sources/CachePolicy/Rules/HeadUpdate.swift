public import HTTPCore

/// What the origin's answer to a `HEAD` does to the stored `GET` response it could have been chosen for,
/// [RFC 9111 §4.3.5](https://www.rfc-editor.org/rfc/rfc9111#section-4.3.5).
///
/// Only a `200` counts (§4.3.5 speaks of no other status): its header fields update the stored response
/// when every validator it carries (`ETag`, `Last-Modified`) has the stored value, and its
/// `Content-Length`, when it has one, is the stored body's length; otherwise the stored response no
/// longer describes the resource and is invalidated.
public enum HeadUpdate {
    /// The effect on the stored response.
    public enum Outcome: Sendable, Equatable {
        /// Merge the HEAD's fields into the stored response as a 304's are (§3.2) and renew its freshness.
        case update
        /// The HEAD describes another representation: the stored response must not be served as is.
        case invalidate
        /// Not a `200`: the stored response is left as it is.
        case none
    }

    /// Compares a HEAD response with the stored response.
    ///
    /// - Parameters:
    ///   - status: The HEAD response's status code.
    ///   - headers: The HEAD response's header section.
    ///   - stored: The stored response's header section.
    ///   - storedLength: The length in bytes of the stored body as the origin sent it.
    /// - Returns: What to do with the stored response.
    public static func outcome(status: Int, headers: HTTPHeaders, stored: HTTPHeaders, storedLength: Int) -> Outcome {
        guard status == 200 else { return .none }
        if let received = headers["ETag"] {
            // "Matching values" (§4.3.5): the same entity tag, weakness included.
            guard let tag = EntityTag(parsing: received), let storedTag = stored["ETag"].flatMap(EntityTag.init),
                tag == storedTag
            else { return .invalidate }
        }
        if let received = headers["Last-Modified"] {
            guard let date = HTTPDate(received), let storedDate = stored["Last-Modified"].flatMap({ HTTPDate($0) }),
                date == storedDate
            else { return .invalidate }
        }
        if let received = headers["Content-Length"], Int(received) != storedLength {
            return .invalidate
        }
        return .update
    }
}

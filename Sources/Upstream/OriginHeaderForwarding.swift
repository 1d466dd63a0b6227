public import HTTPCore

/// Which request headers reach the origin, and the loop guard on `Via` (RFC 9110 §7.6).
///
/// Pure functions, so the rules are unit-tested without sockets.
public enum OriginHeaderForwarding {
    /// Hop-by-hop fields (RFC 9110 §7.6.1), lower case, never forwarded in either direction.
    public static let hopByHop: [String] = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authorization", "proxy-authenticate",
    ]

    static let hopByHopNames = FieldNames(hopByHop)

    /// Request fields Larder sets itself or that describe a body Larder does not send.
    private static let replacedOnRequest = FieldNames(["host", "content-length", "expect", "via"])

    /// The end-to-end fields of a message: without hop-by-hop fields and those named in `Connection`.
    /// The usual message has neither, and is returned as it is, without a copy (a copy line by line cost
    /// 10 000 instructions a message, twice a miss: callgrind).
    /// - Parameter headers: the fields as received (request or response).
    /// - Returns: the fields that may be passed on, in order.
    public static func endToEnd(_ headers: HTTPHeaders) -> HTTPHeaders {
        var kept = headers
        kept.removeHopByHop(hopByHopNames)
        return kept
    }

    /// The fields sent to the origin for a caller's request.
    ///
    /// End-to-end fields in order, minus `Host` (it comes from the URL), `Content-Length` and `Expect`
    /// (no body is sent); then one `Via` with the caller's `Via` values and `1.1 <viaName>` appended.
    /// - Parameters:
    ///   - headers: the caller's request fields.
    ///   - viaName: Larder's pseudonym in `Via`.
    /// - Returns: the fields to send.
    /// - Throws: `OriginError.invalidRequestHeader` when a name is not a token or a value holds CR, LF,
    ///   NUL or another control character than tab (RFC 9110 §5.5) — such a request never reaches the origin.
    public static func forwardedRequestHeaders(_ headers: HTTPHeaders, viaName: String) throws(OriginError)
        -> HTTPHeaders
    {
        for field in headers {
            guard HTTPToken.isValid(field.name) else {
                throw .invalidRequestHeader(name: field.name, reason: "name is not a token")
            }
            if holdsControlByte(field.value) {
                throw .invalidRequestHeader(name: field.name, reason: "value contains CR, LF, NUL or a control byte")
            }
        }
        // One copy, sized for `Via`, then the hop-by-hop fields dropped from it in place: removing from a shared
        // copy and appending to it copied the caller's fields twice (callgrind).
        var forwarded = headers.removing(replacedOnRequest, reservingExtra: 1)
        forwarded.removeHopByHop(hopByHopNames)
        let via = (headers.values(for: "Via").filter { !$0.isEmpty } + ["1.1 \(viaName)"]).joined(separator: ", ")
        forwarded.add(name: "Via", value: via)
        return forwarded
    }

    /// Whether a field value holds CR, LF, NUL or another control byte than tab, read on its contiguous
    /// bytes (the view's iterator cost about 30 instructions a byte).
    private static func holdsControlByte(_ value: String) -> Bool {
        func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }
        return value.utf8.withContiguousStorageIfAvailable { $0.contains(where: isControl) }
            ?? value.utf8.contains(where: isControl)
    }

    /// Whether a request already passed through this Larder (its pseudonym is in `Via`), i.e. fetching
    /// it would loop (the API answers 508).
    /// - Parameters:
    ///   - requestHeaders: the caller's request fields.
    ///   - viaName: Larder's pseudonym.
    /// - Returns: `true` when one `Via` entry's received-by equals `viaName` (ASCII case-insensitive).
    public static func isLoop(requestHeaders: HTTPHeaders, viaName: String) -> Bool {
        requestHeaders.listValues(for: "Via").contains { entry in
            // via-entry = received-protocol RWS received-by [ RWS comment ]
            let words = entry.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return words.count >= 2 && String(words[1]).equalsIgnoringASCIICase(viaName)
        }
    }
}

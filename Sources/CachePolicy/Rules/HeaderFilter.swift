public import HTTPCore

/// Which response header fields a shared cache keeps and forwards
/// ([RFC 9111 §3.1](https://www.rfc-editor.org/rfc/rfc9111#section-3.1),
/// [RFC 9110 §7.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-7.6.1)).
public enum HeaderFilter {
    /// Hop-by-hop fields (RFC 9110 §7.6.1, plus the non-standard `Proxy-Connection` and `Keep-Alive`).
    public static let hopByHopFields: [String] = [
        "connection", "proxy-connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// Fields specific to the proxy a cache talks through, never stored (RFC 9111 §3.1).
    public static let proxyFields: [String] = [
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// Fields Larder sets on its own answers; an origin's (or an upstream cache's) copy is dropped so a
    /// replay never repeats stale cache metadata. `Cache-Status` is Larder's to write on each answer.
    public static let larderFields: [String] = ["x-cache", "x-cache-key", "cache-status"]

    /// Whether a field is hop-by-hop, either by definition or because `Connection` names it.
    ///
    /// - Parameters:
    ///   - name: The field name, any case.
    ///   - connectionOptions: The members of the message's `Connection` field, any case.
    /// - Returns: `true` when the field must not travel past this hop.
    public static func isHopByHop(_ name: String, connectionOptions: [String] = []) -> Bool {
        name.isAmong(hopByHopFields) || name.isAmong(connectionOptions)
    }

    /// The response header section as it is stored: without hop-by-hop fields, fields named in
    /// `Connection`, proxy fields and Larder's own (RFC 9111 §3.1). Order and repetition are kept.
    ///
    /// - Parameter headers: The response header section from the origin.
    /// - Returns: The fields to store.
    public static func storable(_ headers: HTTPHeaders) -> HTTPHeaders {
        var kept = headers
        kept.removeHopByHop(unstorableNames)
        return kept
    }

    /// The hop-by-hop, proxy and Larder fields, prepared for matching.
    private static let unstorableNames = FieldNames(hopByHopFields + proxyFields + larderFields)

    /// Whether one response field is kept in storage.
    ///
    /// - Parameters:
    ///   - name: The field name, any case.
    ///   - connectionOptions: The members of the response's `Connection` field, any case.
    /// - Returns: `false` for hop-by-hop, `Connection`-named, proxy and Larder fields.
    public static func isStorable(_ name: String, connectionOptions: [String] = []) -> Bool {
        // Compared in place, folding ASCII case, by the names' signatures (`FieldNames`): a lower-cased copy
        // and a set lookup cost hundreds of instructions a field (callgrind: the options as a lower-cased
        // `Set` were 11 000 of every miss), and the three lists in turn 17 000.
        !unstorableNames.contains(name) && (connectionOptions.isEmpty || !name.isAmong(connectionOptions))
    }
}

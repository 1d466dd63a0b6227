extension RawSocketClient {
    /// One request on a new connection that says `Connection: close`, and its whole response: how the test
    /// clients of a live server (`LarderProcess.request`, `LarderTestClient` live) send theirs.
    /// - Parameters:
    ///   - port: the server's port on 127.0.0.1.
    ///   - method: the method.
    ///   - target: the request target (`/cache?limit=2`).
    ///   - headerLines: the field lines besides `Host`, `Connection` and `Content-Length` (added for a body),
    ///     sent as given (`Name: value`).
    ///   - body: the content, if any.
    ///   - timeout: the longest any read waits, in seconds.
    /// - Returns: the final response, with any interim ones before it in `interim`; HEAD's carries no content.
    /// - Throws: `RawSocketError` when the exchange fails.
    public static func exchange(
        port: Int, _ method: String, _ target: String, headerLines: [String] = [], body: [UInt8]? = nil,
        timeout: Double = 30
    ) throws -> RawHTTPResponse {
        let client = try RawSocketClient(port: port, timeout: timeout)
        defer { client.close() }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        for line in headerLines { head += line + "\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        try client.send(bytes: Array((head + "\r\n").utf8) + (body ?? []))
        return try client.readFinalResponse(isHeadResponse: method == "HEAD")
    }
}

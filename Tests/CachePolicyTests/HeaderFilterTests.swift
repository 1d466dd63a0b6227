import CachePolicy
import HTTPCore
import Testing

/// RFC 9111 §3.1 and RFC 9110 §7.6.1: which response fields are stored.
@Suite struct HeaderFilterTests {
    @Test func storableDropsHopByHopConnectionNamedProxyAndLarderFields() {
        let origin = HTTPHeaders([
            ("Content-Type", "text/plain"), ("Connection", "close, X-Trace"), ("X-Trace", "t"), ("Keep-Alive", "5"),
            // Options are named in any case, on any Connection line.
            ("connection", " x-OTHER "), ("X-Other", "o"),
            ("Transfer-Encoding", "chunked"), ("TE", "trailers"), ("Trailer", "X"), ("Upgrade", "h2c"),
            ("Proxy-Connection", "keep-alive"), ("Proxy-Authenticate", "Basic"), ("Proxy-Authentication-Info", "x"),
            ("X-Cache", "HIT"), ("X-Cache-Key", "k"), ("Cache-Status", "other; hit"),
            ("ETag", "\"1\""), ("Age", "5"), ("Via", "1.1 upstream"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
        ])
        #expect(
            HeaderFilter.storable(origin)
                == HTTPHeaders([
                    ("Content-Type", "text/plain"), ("ETag", "\"1\""), ("Age", "5"), ("Via", "1.1 upstream"),
                    ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
                ]))
    }

    @Test(
        arguments: [
            ("Connection", [], true), ("KEEP-ALIVE", [], true), ("Upgrade", [], true), ("X-Trace", ["x-trace"], true),
            ("x-trace", ["X-TRACE"], true),
            ("Content-Type", [], false), ("Cache-Control", ["x-trace"], false),
        ] as [(String, [String], Bool)])
    func hopByHopIncludesConnectionOptions(name: String, options: [String], expected: Bool) {
        #expect(HeaderFilter.isHopByHop(name, connectionOptions: options) == expected)
    }
}

import HTTPCore
import Testing

/// `HTTPMethod`: which methods are safe (RFC 9110 §9.2.1).
@Suite struct HTTPMethodTests {
    @Test(arguments: [
        ("GET", true), ("HEAD", true), ("OPTIONS", true), ("TRACE", true), ("QUERY", true), ("POST", false),
        ("PUT", false), ("DELETE", false), ("PATCH", false), ("CONNECT", false), ("PURGE", false),
        ("get", false), ("BREW", false),
    ])
    func safeMethodsAreTheRFCsAndNoOthers(token: String, safe: Bool) {
        #expect(HTTPMethod(rawValue: token).isSafe == safe)
    }
}

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

    @Test(arguments: [
        ("GET", true), ("get", true), ("PURGE", true), ("M-SEARCH", true), ("!#$%&'*+-.^_`|~09", true), ("", false),
        ("GET ", false), ("G\rT", false), ("G\nT", false), ("GE/T", false), ("GÉT", false), ("G(T)", false),
    ])
    func aMethodIsMadeFromATokenOnly(text: String, valid: Bool) {
        let method = HTTPMethod(validatingToken: text)
        #expect((method != nil) == valid)
        if valid { #expect(method?.rawValue == text) }
    }
}

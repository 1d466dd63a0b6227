internal import HTTPCore

/// One filter compiled for matching: globs built, extensions as lower-case bytes, and the decision made
/// once, so that deciding a request touches no JSON and allocates nothing.
///
/// A class, not a struct: the chain walks its matchers once per request, and copying a struct of this
/// many references cost a retain and a release each (most of the time of a decision, measured with
/// `perf` on Benchmarks/filters); a reference costs one pair. Immutable, hence `Sendable`.
final class FilterMatcher: Sendable {
    private struct HeaderTest: Sendable {
        let name: String
        let comparison: FilterDefinition.HeaderComparison
        let value: [UInt8]
    }

    /// A host pattern in its cheapest form. Hosts and patterns are both lower-case already, so plain
    /// byte comparison is exact for the two shapes nearly every filter uses.
    private enum HostTest: Sendable {
        /// No wildcard: the whole host.
        case exact([UInt8])
        /// `*` then no wildcard (`*.example.com`): the host ends with the rest.
        case suffix([UInt8])
        /// Anything else.
        case glob(GlobPattern)

        init(_ pattern: String) {
            let bytes = Array(pattern.utf8)
            let isWildcard = { (byte: UInt8) in byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") }
            if !bytes.contains(where: isWildcard) {
                self = .exact(bytes)
            } else if bytes.first == UInt8(ascii: "*"), !bytes.dropFirst().contains(where: isWildcard) {
                self = .suffix(Array(bytes.dropFirst()))
            } else {
                self = .glob(GlobPattern(pattern, ignoresASCIICase: true))
            }
        }

        func matches(_ host: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
            switch self {
            case .exact(let wanted): host.elementsEqual(wanted)
            case .suffix(let tail): host.count >= tail.count && host[(host.count - tail.count)...].elementsEqual(tail)
            case .glob(let pattern): pattern.matches(text)
            }
        }
    }

    let definition: FilterDefinition
    /// Whether the filter before it in the chain has the same request conditions but for `methods` (the
    /// default chain's `images` then `images-read-only`): when that one failed on one of them, this one
    /// fails too, and `FilterChain.decide` need not ask.
    let sharesConditionsWithPrevious: Bool
    private let enabled: Bool
    /// The decision for the requests this filter owns.
    let decision: FilterDecision
    private let schemes: [String]
    private let hosts: [HostTest]
    private let extensions: [[UInt8]]
    private let pathPrefix: [UInt8]?
    private let methods: [HTTPMethod]
    private let headers: [HeaderTest]

    init(_ definition: FilterDefinition, previous: FilterDefinition? = nil) {
        self.definition = definition
        if var conditions = previous?.match {
            conditions.methods = definition.match.methods
            sharesConditionsWithPrevious = conditions == definition.match
        } else {
            sharesConditionsWithPrevious = false
        }
        enabled = definition.enabled
        decision = definition.decision
        schemes = definition.match.schemes
        hosts = definition.match.hosts.map { HostTest($0.lowercased()) }
        extensions = definition.match.extensions.map { Array($0.lowercased().utf8) }
        pathPrefix = definition.match.pathPrefix.map { Array($0.utf8) }
        methods = definition.match.methods.map { HTTPMethod(rawValue: $0) }
        headers = definition.match.headers.map {
            HeaderTest(name: $0.name, comparison: $0.comparison, value: Array($0.value.utf8))
        }
    }

    /// The first condition that does not hold, in the order `disabled`, scheme, host, extension, path
    /// prefix, method, headers; `nil` when the filter owns the request.
    func firstFailure(url: CanonicalURL, method: HTTPMethod, headers requestHeaders: HTTPHeaders) -> FilterCondition? {
        guard enabled else { return .disabled }
        if !schemes.isEmpty && !schemes.contains(url.scheme) { return .scheme }
        if !hosts.isEmpty && !hostMatches(url.host) { return .host }
        if !extensions.isEmpty && !Self.hasExtension(url.path, in: extensions) { return .extension }
        if let pathPrefix, !url.path.utf8.starts(with: pathPrefix) { return .pathPrefix }
        if !methods.isEmpty && !methods.contains(method) { return .method }
        for test in headers where !Self.holds(test, in: requestHeaders) { return .header(test.name) }
        return nil
    }

    private func hostMatches(_ host: String) -> Bool {
        var bytes = host
        return bytes.withUTF8 { buffer in hosts.contains { $0.matches(buffer, host) } }
    }

    /// Whether the last segment of `path` ends in `.ext` for one of `extensions` (ASCII case folded).
    private static func hasExtension(_ path: String, in extensions: [[UInt8]]) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            let segmentStart = (bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
            guard let dot = bytes[segmentStart...].lastIndex(of: UInt8(ascii: ".")) else { return false }
            let candidate = bytes[(dot + 1)...]
            return extensions.contains { wanted in
                wanted.count == candidate.count && zip(wanted, candidate).allSatisfy { $0 == $1.asciiLowercased }
            }
        }
    }

    private static func holds(_ test: HeaderTest, in headers: HTTPHeaders) -> Bool {
        for field in headers where field.name.equalsIgnoringASCIICase(test.name) {
            var value = field.value
            let matched = value.withUTF8 { bytes in
                switch test.comparison {
                case .equals: bytes.elementsEqual(test.value)
                case .prefix: bytes.starts(with: test.value)
                case .contains: contains(bytes, test.value)
                }
            }
            if matched { return true }
        }
        return false
    }

    private static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        var start = 0
        while start <= haystack.count - needle.count {
            if haystack[start] == first && haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return true
            }
            start += 1
        }
        return false
    }
}

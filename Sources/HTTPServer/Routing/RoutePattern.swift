import HTTPCore

/// A path pattern of literal segments and `:name` parameters, matched segment by segment.
struct RoutePattern: Sendable, Equatable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]
    /// Whether the pattern ends with `/` after a segment (`/ui/`): it then matches only paths that do.
    let trailingSlash: Bool

    /// Parses `/cache/:key/meta`; an empty pattern or `/` is the root; `/ui/` keeps its final slash.
    init(_ pattern: String) {
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            part.first == ":" ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
        trailingSlash = !segments.isEmpty && pattern.hasSuffix("/")
    }

    /// The one path this pattern matches when it has no parameters (`/fetch`), else `nil`.
    var literalPath: String? {
        var path = ""
        for segment in segments {
            guard case .literal(let literal) = segment else { return nil }
            path += "/" + literal
        }
        return path.isEmpty ? "/" : trailingSlash ? path + "/" : path
    }

    /// The captured parameters when `path` matches, percent-decoded; `nil` otherwise.
    ///
    /// Segments are compared on the still-encoded path; a parameter never matches an empty segment,
    /// and a trailing slash makes a different path (`/ui` and `/ui/` are two patterns).
    func match(_ path: String) -> HTTPRouteParameters? {
        var utf8 = path.utf8[...]
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        utf8 = utf8.dropFirst()
        if segments.isEmpty { return utf8.isEmpty ? HTTPRouteParameters() : nil }
        var parameters = HTTPRouteParameters()
        for (index, segment) in segments.enumerated() {
            let end = utf8.firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            let part = utf8[..<end]
            switch segment {
            case .literal(let literal):
                guard part.elementsEqual(literal.utf8) else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                let raw = String(Substring(part))
                parameters.append(name: name, value: raw.percentDecoded() ?? raw)
            }
            let isLast = index == segments.count - 1
            if isLast {
                if trailingSlash {
                    guard end != utf8.endIndex, utf8.index(after: end) == utf8.endIndex else { return nil }
                } else {
                    guard end == utf8.endIndex else { return nil }
                }
            } else {
                guard end != utf8.endIndex else { return nil }
                utf8 = utf8[utf8.index(after: end)...]
            }
        }
        return parameters
    }
}

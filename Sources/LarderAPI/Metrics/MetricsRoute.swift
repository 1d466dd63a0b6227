public import Metrics

/// The route a request is counted under in metrics: a small fixed set, never the raw path, so that
/// no caller can grow the number of series.
public enum MetricsRoute: Int, Sendable, MetricLabelValue {
    /// `/fetch`.
    case fetch
    /// `/cache` and everything under it.
    case cache
    /// `/filters` and everything under it.
    case filters
    /// `/fetches`.
    case fetches
    /// `/healthz` (the older name of `/livez`).
    case healthz
    /// `/livez`.
    case livez
    /// `/readyz`.
    case readyz
    /// `/metrics`.
    case metrics
    /// `/openapi.yaml`.
    case openapi
    /// Anything else (unknown paths, absolute-form targets, `*`).
    case other

    /// The label value.
    public var label: String {
        switch self {
        case .fetch: "fetch"
        case .cache: "cache"
        case .filters: "filters"
        case .fetches: "fetches"
        case .healthz: "healthz"
        case .livez: "livez"
        case .readyz: "readyz"
        case .metrics: "metrics"
        case .openapi: "openapi"
        case .other: "other"
        }
    }

    // The first path segment of each named route, as bytes: classification compares bytes and
    // allocates nothing.
    private static let segments: [(segment: [UInt8], route: MetricsRoute)] = [
        (Array("fetch".utf8), .fetch), (Array("cache".utf8), .cache), (Array("filters".utf8), .filters),
        (Array("fetches".utf8), .fetches), (Array("healthz".utf8), .healthz), (Array("livez".utf8), .livez),
        (Array("readyz".utf8), .readyz), (Array("metrics".utf8), .metrics),
        (Array("openapi.yaml".utf8), .openapi),
    ]

    /// The route of a request target: its first path segment, up to `/`, `?` or the end.
    /// - Parameter target: the request target as received (origin form `/path?query`).
    /// - Returns: the route, `.other` when the segment names none.
    public static func classify(_ target: String) -> MetricsRoute {
        if let route = target.utf8.withContiguousStorageIfAvailable({ classify(bytes: $0) }) { return route }
        // A bridged or non-contiguous string: one copy, off the usual path (Swift strings are native).
        return Array(target.utf8).withUnsafeBufferPointer { classify(bytes: $0) }
    }

    /// The route of a request target given as bytes.
    /// - Parameter bytes: the target.
    /// - Returns: the route, `.other` when the first segment names none.
    public static func classify(bytes: UnsafeBufferPointer<UInt8>) -> MetricsRoute {
        guard bytes.first == UInt8(ascii: "/") else { return .other }
        var end = 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?") { end += 1 }
        let segment = UnsafeBufferPointer(rebasing: bytes[1..<end])
        for (name, route) in segments where name.count == segment.count && name.elementsEqual(segment) {
            return route
        }
        return .other
    }
}

/// The `X-Cache` value on `/fetch` answers (DESIGN.md, HTTP API): a one-word summary for people and
/// dashboards, next to the precise `Cache-Status`.
public enum XCache: String, Sendable, Equatable, CaseIterable {
    /// Served from storage, fresh (or stale with the caller's `max-stale`).
    case hit = "HIT"
    /// Fetched from the origin.
    case miss = "MISS"
    /// Served stale: origin failure (`stale-if-error`) or `stale-while-revalidate`.
    case stale = "STALE"
    /// Served from storage after the origin answered 304.
    case revalidated = "REVALIDATED"
    /// Fetched from the origin, not looked up and not stored (a `bypass` filter, an unsafe method).
    case bypass = "BYPASS"
}

/// Receives the events of one origin fetch.
///
/// All calls come on the client's driver thread, in order: `didReceiveHead` at most once, then
/// `didReceive(bytes:)` per piece, then `didFinish` exactly once. They must return quickly (hand work
/// to your own queue): every fetch of the client shares that thread. Calling `pause()`, `resume()` or
/// `cancel()` on the fetch from inside a callback is allowed.
public protocol OriginFetchDelegate: AnyObject, Sendable {
    /// The final response head arrived (not sent for failures before it, nor when the body is refused
    /// up front by `Content-Length`).
    func fetch(_ fetch: OriginFetch, didReceiveHead head: OriginResponseHead)
    /// A piece of the body arrived, as received (no content decoding).
    func fetch(_ fetch: OriginFetch, didReceive bytes: [UInt8])
    /// The fetch ended; on failure, bytes already delivered are not a complete body.
    func fetch(_ fetch: OriginFetch, didFinish result: Result<OriginFetchMetrics, OriginError>)
}

/// Receives the events of one origin fetch.
///
/// All calls come on the client's driver thread, in order: `didReceiveInterim` for each interim response
/// the origin sent (102, 103 and the like; never 100 or 101), `didReceiveHead` at most once, then
/// `didReceive(bytes:)` per piece, then `didFinish` exactly once; `fetchDidEndRead` follows each batch
/// of head and pieces that one read from the origin carried, unless the fetch finished with it. They must return quickly (hand work
/// to your own queue): every fetch of the client shares that thread. Calling `pause()`, `resume()` or
/// `cancel()` on the fetch from inside a callback is allowed.
public protocol OriginFetchDelegate: AnyObject, Sendable {
    /// An interim (1xx) response arrived before the final one: `102 Processing`, `103 Early Hints`, or a
    /// code not registered yet (RFC 9110 §15.2). Its head counts toward the header size limit.
    func fetch(_ fetch: OriginFetch, didReceiveInterim head: OriginResponseHead)
    /// The final response head arrived (not sent for failures before it, nor when the body is refused
    /// up front by `Content-Length`).
    func fetch(_ fetch: OriginFetch, didReceiveHead head: OriginResponseHead)
    /// A piece of the body arrived, as received (no content decoding).
    func fetch(_ fetch: OriginFetch, didReceive bytes: [UInt8])
    /// The fetch ended; on failure, bytes already delivered are not a complete body.
    func fetch(_ fetch: OriginFetch, didFinish result: Result<OriginFetchMetrics, OriginError>)
    /// Everything the origin's last read carried has been delivered (a head and the first bytes often
    /// come in one): a delegate that holds back telling others about the head, so that they find those
    /// bytes already there, tells them now.
    func fetchDidEndRead(_ fetch: OriginFetch)
}

extension OriginFetchDelegate {
    public func fetch(_ fetch: OriginFetch, didReceiveInterim head: OriginResponseHead) {}
    public func fetchDidEndRead(_ fetch: OriginFetch) {}
}

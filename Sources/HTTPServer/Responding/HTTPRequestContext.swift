public import Dispatch
public import HTTPCore

/// What a handler knows about a request besides the request itself.
public struct HTTPRequestContext: Sendable {
    /// The client's end of the connection.
    public var remoteAddress: HTTPAddress
    /// The server's end of the connection.
    public var localAddress: HTTPAddress
    /// A number unique to the connection for the life of the process (for logs and tracing).
    public var connectionID: Int
    /// When the request was complete and handed to the responder (monotonic).
    public var startTime: DispatchTime
    /// The values of the route pattern's `:name` segments, percent-decoded; empty outside a router.
    public var parameters: HTTPRouteParameters
    /// The request's identifier: the caller's `X-Request-Id` when usable, else a new one. The server
    /// writes it on the response; a handler forwards it to whatever it asks on the caller's behalf.
    public var requestID: HTTPRequestID

    /// Creates a context (the server makes them; tests may too).
    /// - Parameters:
    ///   - remoteAddress: the client's end.
    ///   - localAddress: the server's end.
    ///   - connectionID: the connection's number.
    ///   - startTime: when the request was complete.
    ///   - parameters: route parameters.
    ///   - requestID: the request's identifier, default a new one.
    public init(
        remoteAddress: HTTPAddress,
        localAddress: HTTPAddress,
        connectionID: Int,
        startTime: DispatchTime = .now(),
        parameters: HTTPRouteParameters = HTTPRouteParameters(),
        requestID: HTTPRequestID = HTTPRequestID()
    ) {
        self.remoteAddress = remoteAddress
        self.localAddress = localAddress
        self.connectionID = connectionID
        self.startTime = startTime
        self.parameters = parameters
        self.requestID = requestID
    }
}

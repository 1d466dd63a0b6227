public import HTTPCore

/// Routes requests by method and path pattern; itself a responder.
///
/// Patterns are literal segments and `:name` parameters (`/cache/:key/meta`). A method that is neither
/// one of RFC 9110's (and PATCH, QUERY) nor taken by some route (`get`, `PROPFIND`) gets 501 whatever the path
/// ([RFC 9110 §9.1](https://www.rfc-editor.org/rfc/rfc9110#section-9.1): unrecognized or not implemented);
/// otherwise a path that matches no pattern gets 404, and a path that
/// matches with another method 405 with `Allow`. HEAD is served by the GET route when no HEAD route is
/// given. A pattern may take every method (`addAnyMethod`: `/fetch` forwards any method to origins); its
/// own handlers for given methods still come first. The errors are problem+json.
public struct Router: HTTPResponder {
    private struct Route: Sendable {
        let pattern: RoutePattern
        var handlers: [HTTPMethod: any HTTPResponder]
        /// What answers the methods `handlers` does not name, when the route takes every method.
        var anyMethod: (any HTTPResponder)?

        /// The responder for a method: its own, GET's for HEAD, else the one for every method.
        func handler(for method: HTTPMethod) -> (any HTTPResponder)? {
            handlers[method] ?? (method == .head ? handlers[.get] : nil) ?? anyMethod
        }
    }

    private var routes: [Route] = []
    /// Patterns without parameters, by their path, to the route's index when no earlier route matches
    /// that path: the common request is routed by one hash lookup instead of matching each pattern.
    private var literalRoutes: [String: Int] = [:]
    /// The methods this server recognizes: RFC 9110's (§9.3; CONNECT never gets here, the parser answers
    /// it), PATCH (RFC 5789) and QUERY (the IETF's safe method with a body), and any other some route
    /// takes. A recognized method a path does not take is 405 there, as clients and contract checkers
    /// (schemathesis sends QUERY to every path) expect of a standard method.
    private var knownMethods: Set<HTTPMethod> = [
        .get, .head, .post, .put, .delete, .options, .trace, .patch, .query,
    ]

    /// Creates a router without routes.
    public init() {}

    /// Adds a route; a second responder for the same method and pattern replaces the first.
    /// - Parameters:
    ///   - method: the method it answers.
    ///   - pattern: the path pattern, starting with `/`.
    ///   - responder: what answers the matching requests.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ responder: any HTTPResponder) {
        knownMethods.insert(method)
        routes[routeIndex(for: RoutePattern(pattern))].handlers[method] = responder
    }

    /// Lets a pattern take every method, those no route names included (they are then not 501 there):
    /// `responder` answers each method the pattern has no handler of its own for.
    /// - Parameters:
    ///   - pattern: the path pattern, starting with `/`; a route added with `add` for it keeps its handlers.
    ///   - responder: what answers the other methods.
    public mutating func addAnyMethod(_ pattern: String, _ responder: any HTTPResponder) {
        routes[routeIndex(for: RoutePattern(pattern))].anyMethod = responder
    }

    /// The index of the route for `pattern`, appended without handlers when there is none yet. A new literal
    /// path goes to the fast lookup unless an earlier pattern already owns it (the first match wins).
    private mutating func routeIndex(for pattern: RoutePattern) -> Int {
        if let index = routes.firstIndex(where: { $0.pattern == pattern }) { return index }
        routes.append(Route(pattern: pattern, handlers: [:], anyMethod: nil))
        if let path = pattern.literalPath, !routes.dropLast().contains(where: { $0.pattern.match(path) != nil }) {
            literalRoutes[path] = routes.count - 1
        }
        return routes.count - 1
    }

    /// Adds a route answered by a closure.
    /// - Parameters:
    ///   - method: the method it answers.
    ///   - pattern: the path pattern, starting with `/`.
    ///   - handler: answers the matching requests through the writer.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String,
        handler: @escaping @Sendable (HTTPRequest, HTTPRequestContext, HTTPResponseWriter) -> Void
    ) {
        add(method, pattern, HTTPClosureResponder(handler))
    }

    /// Finds the route and calls its responder with the captured parameters in the context. The first
    /// route (in the order added) whose pattern matches the path owns it: 405 with its `Allow` when it has
    /// no handler for the method, 404 when no pattern matches.
    public func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        if let index = literalRoutes[request.path] {
            if let handler = routes[index].handler(for: request.method) {
                var routed = context
                routed.parameters = HTTPRouteParameters()
                return handler.respond(to: request, context: routed, writer: writer)
            }
        }
        var allowed: [HTTPMethod]?
        for route in routes {
            guard let parameters = route.pattern.match(request.path) else { continue }
            if let handler = route.handler(for: request.method) {
                var routed = context
                routed.parameters = parameters
                handler.respond(to: request, context: routed, writer: writer)
                return
            }
            // The first route whose pattern matches owns the path: a literal route added before a
            // parameterised one (`/filters/explain` before `/filters/:name`) is a resource of its own,
            // so another method on it is 405 with its own Allow (RFC 9110 §15.5.6).
            allowed = Array(route.handlers.keys)
            break
        }
        // No handler took it. A method no route knows is not implemented here at all (RFC 9110 §9.1),
        // whatever the path; a known one is 405 where the path exists, 404 where it does not.
        if !knownMethods.contains(request.method) {
            writer.send(Self.notImplemented(request.method))
        } else if let allowed {
            writer.send(Self.methodNotAllowed(request.method, allowed: allowed))
        } else {
            let problem = ProblemDetails.make(
                status: .notFound, type: HTTPProblemType.notFound, detail: "No resource at \(request.path).")
            writer.send(problem.makeResponse())
        }
    }

    private static func notImplemented(_ method: HTTPMethod) -> HTTPResponse {
        // A method token may be as long as the request line allows: name only its start.
        let shown = method.rawValue.count > 32 ? String(method.rawValue.prefix(32)) + "…" : method.rawValue
        let problem = ProblemDetails.make(
            status: .notImplemented, type: HTTPProblemType.parseFailure(status: .notImplemented),
            detail: "The method \(shown) is not implemented by this server (methods are case-sensitive).")
        return problem.makeResponse()
    }

    private static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> HTTPResponse {
        var names = Set(allowed.map(\.rawValue))
        if names.contains("GET") { names.insert("HEAD") }
        let allow = names.sorted().joined(separator: ", ")
        let problem = ProblemDetails.make(
            status: .methodNotAllowed, type: HTTPProblemType.methodNotAllowed,
            detail: "\(method.rawValue) is not allowed here; use \(allow).")
        return problem.makeResponse(headers: HTTPHeaders([("Allow", allow)]))
    }
}

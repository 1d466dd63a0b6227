import HTTPCore
import HTTPServer
import TestSupport
import Testing

@Suite struct RouterTests {
    static func makeRouter() -> Router {
        var router = Router()
        router.add(.get, "/healthz") { _, _, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("ok".utf8))))
        }
        router.add(.get, "/cache/:key") { _, context, writer in
            writer.send(
                HTTPResponse(status: .ok, body: .bytes(Array("entry \(context.parameters["key"] ?? "-")".utf8))))
        }
        router.add(.delete, "/cache/:key") { _, _, writer in writer.send(HTTPResponse(status: .noContent)) }
        router.add(.get, "/cache/:key/meta") { _, context, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("meta \(context.parameters["key"] ?? "-")".utf8))))
        }
        router.add(.put, "/filters/:name") { _, context, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("put \(context.parameters["name"] ?? "-")".utf8))))
        }
        return router
    }

    @Test(arguments: [
        ("GET /cache/abc HTTP/1.1", 200, "entry abc"),
        ("GET /cache/abc/meta HTTP/1.1", 200, "meta abc"),
        ("PUT /filters/web%20kit HTTP/1.1", 200, "put web kit"),
        ("DELETE /cache/abc HTTP/1.1", 204, ""),
        ("GET /healthz?verbose=1 HTTP/1.1", 200, "ok"),
    ])
    func routesCaptureParameters(requestLine: String, status: Int, body: String) async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            let length = requestLine.hasPrefix("PUT") ? "Content-Length: 0\r\n" : ""
            try client.send("\(requestLine)\r\nHost: test\r\n\(length)\r\n")
            let response = try client.readResponse()
            #expect(response.status == status)
            #expect(response.text == body)
        }
    }

    @Test(arguments: ["/nope", "/cache", "/cache/", "/cache/abc/meta/more", "/healthz/"])
    func unknownPathsGet404ProblemJSON(path: String) async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get(path))
            let response = try client.readResponse()
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.text.contains("\"type\":\"https://larder.dev/problems/not-found\""))
        }
    }

    @Test(arguments: [
        ("/ui/", 200, "page"), ("/ui", 200, "bare"), ("/ui//", 404, nil), ("/ui/x", 404, nil), ("/uix/", 404, nil),
        ("/box/7/", 200, "slash 7"), ("/box/7", 404, nil),
    ])
    func patternEndingInASlashMatchesOnlyPathsThatDo(path: String, status: Int, body: String?) async throws {
        var router = Router()
        router.add(.get, "/ui/") { _, _, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("page".utf8))))
        }
        router.add(.get, "/ui") { _, _, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("bare".utf8))))
        }
        router.add(.get, "/box/:id/") { _, context, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("slash \(context.parameters["id"] ?? "-")".utf8))))
        }
        try await withServer(responder: router) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send(get(path))
            let response = try client.readResponse()
            #expect(response.status == status)
            if let body { #expect(response.text == body) }
        }
    }

    @Test func knownPathWithAnotherMethodGets405WithAllow() async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            // PUT is a method this server takes (on /filters/:name), just not on this path.
            try client.send("PUT /cache/abc HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 405)
            #expect(response.header("Allow") == "DELETE, GET, HEAD")
            #expect(response.text.contains("method-not-allowed"))
        }
    }

    /// RFC 9110 §9.1: a method the server does not recognize is 501 on any path; a standard one a path
    /// does not take is 405 there (below).
    @Test(arguments: [
        "get /healthz", "PROPFIND /cache/abc", "BREW /nope", String(repeating: "X", count: 400) + " /healthz",
        "Get /cache/abc/meta", "MKCOL /filters/web",
    ])
    func aMethodNoRouteTakesGets501WhateverThePath(requestLine: String) async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("\(requestLine) HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 501)
            #expect(response.header("Allow") == nil)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.text.contains("\"type\":\"https://larder.dev/problems/not-implemented\""))
            #expect(response.text.count < 600, "the detail names a long method by its start only")
            // The connection stays usable: the request was framed, only its method is unknown.
            try client.send(get("/healthz"))
            #expect(try client.readResponse().text == "ok")
        }
    }

    @Test(arguments: [
        ("POST /cache/abc", 405), ("PATCH /cache/abc", 405), ("OPTIONS /healthz", 405), ("TRACE /healthz", 405),
        ("QUERY /cache/abc", 405),
        ("PATCH /nope", 404),
    ])
    func aStandardMethodIs405OnAKnownPathAnd404Elsewhere(requestLine: String, status: Int) async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("\(requestLine) HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == status)
            #expect((response.header("Allow") != nil) == (status == 405))
        }
    }

    /// `/filters/explain` answers GET only: PUT on it must not fall through to `/filters/:name`.
    @Test(
        arguments: [("PUT", 405, "GET, HEAD"), ("POST", 405, "GET, HEAD"), ("GET", 200, nil)]
            as [(String, Int, String?)])
    func aLiteralRouteAddedFirstOwnsItsPath(method: String, status: Int, allow: String?) async throws {
        var ordered = Router()
        ordered.add(.get, "/filters/explain") { _, _, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("explain".utf8))))
        }
        ordered.add(.put, "/filters/:name") { _, context, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("put \(context.parameters["name"] ?? "-")".utf8))))
        }
        try await withServer(responder: ordered) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("\(method) /filters/explain HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == status)
            #expect(response.header("Allow") == allow)
            if status == 200 { #expect(response.text == "explain") }
            // Other names still reach the parameterised route.
            try client.send("PUT /filters/web HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            #expect(try client.readResponse().text == "put web")
        }
    }

    @Test func headIsServedByTheGetRoute() async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("HEAD /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try client.readResponse(isHeadResponse: true)
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == "2")
        }
    }
}

/// Literal routes are found by one lookup; that must not change which route answers.
@Suite struct RouterLiteralRouteTests {
    static func makeRouter() -> Router {
        var router = Router()
        router.add(.get, "/cache/:key") { _, _, writer in writer.send(HTTPResponse(status: .ok, body: .bytes([1]))) }
        router.add(.get, "/cache/purge") { _, _, writer in writer.send(HTTPResponse(status: .ok, body: .bytes([2]))) }
        router.add(.post, "/fetch") { _, _, writer in writer.send(HTTPResponse(status: .ok, body: .bytes([3]))) }
        router.add(.get, "/fetch") { _, _, writer in writer.send(HTTPResponse(status: .ok, body: .bytes([4]))) }
        router.add(.get, "/") { _, _, writer in writer.send(HTTPResponse(status: .ok, body: .bytes([5]))) }
        return router
    }

    @Test(arguments: [
        // An earlier pattern with a parameter that matches still wins over a later literal.
        ("GET /cache/purge", 200, [UInt8(1)]),
        ("GET /fetch?url=x", 200, [4]),
        ("HEAD /fetch", 200, []),
        ("POST /fetch", 200, [3]),
        ("PUT /fetch", 405, nil),
        ("BREW /fetch", 501, nil),
        ("GET /", 200, [5]),
        ("GET /fetch/", 404, nil),
    ])
    func literalRoutesAnswerLikeTheFullScan(request: String, status: Int, body: [UInt8]?) async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            let length = request.hasPrefix("P") ? "Content-Length: 0\r\n" : ""
            try client.send("\(request) HTTP/1.1\r\nHost: test\r\n\(length)\r\n")
            let response = try client.readResponse(isHeadResponse: request.hasPrefix("HEAD"))
            #expect(response.status == status)
            if let body { #expect(response.body == body) }
        }
    }

    /// A route may take a method RFC 9110 does not define: the router then knows it, on a parameterised
    /// pattern too (501 is only for a method no route takes).
    @Test(arguments: [
        ("PURGE /cache/abc", 200), ("PURGE /fetch", 405), ("PURGE /fetch/", 404), ("BREW /cache/abc", 501),
    ])
    func aNonStandardMethodARouteTakesIsRoutedNotRefused(request: String, status: Int) async throws {
        var router = Self.makeRouter()
        router.add(HTTPMethod(rawValue: "PURGE"), "/cache/:key") { _, _, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes([9])))
        }
        try await withServer(responder: router) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("\(request) HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try client.readResponse().status == status)
        }
    }
}

@Suite struct RouterAnyMethodTests {
    static func makeRouter() -> Router {
        var router = RouterTests.makeRouter()
        router.add(.get, "/fetch") { _, _, writer in
            writer.send(HTTPResponse(status: .ok, body: .bytes(Array("get".utf8))))
        }
        router.addAnyMethod(
            "/fetch",
            HTTPClosureResponder { request, _, writer in
                writer.send(HTTPResponse(status: .ok, body: .bytes(Array("any \(request.method)".utf8))))
            })
        return router
    }

    @Test(arguments: [
        ("GET", "get"), ("POST", "any POST"), ("PROPFIND", "any PROPFIND"), ("get", "any get"),
        ("M-SEARCH", "any M-SEARCH"),
    ])
    func aPatternThatTakesEveryMethodAnswersEachAfterItsOwnHandlers(method: String, body: String) async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("\(method) /fetch?url=x HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == body)
        }
    }

    /// HEAD has no handler of its own on `/fetch`: GET's answers it (RFC 9110 §9.3.2), not the one for every
    /// method. A HEAD response has no content, so the handlers say who they are in a field.
    @Test func headOnAPathWithGETAndEveryMethodIsAnsweredByGET() async throws {
        var router = RouterTests.makeRouter()
        router.add(.get, "/fetch") { _, _, writer in
            writer.send(HTTPResponse(status: .ok, headers: HTTPHeaders([("X-Handler", "get")])))
        }
        router.addAnyMethod(
            "/fetch",
            HTTPClosureResponder { _, _, writer in
                writer.send(HTTPResponse(status: .ok, headers: HTTPHeaders([("X-Handler", "any")])))
            })
        try await withServer(responder: router) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("HEAD /fetch?url=x HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try client.readResponse(isHeadResponse: true)
            #expect(response.status == 200)
            #expect(response.header("X-Handler") == "get")
        }
    }

    @Test(arguments: [("PROPFIND", "/cache/abc", 501), ("POST", "/cache/abc", 405), ("POST", "/nope", 404)])
    func otherPathsStillRefuseWhatTheyDoNotTake(method: String, path: String, status: Int) async throws {
        try await withServer(responder: Self.makeRouter()) { server in
            let client = try RawSocketClient(port: server.port)
            try client.send("\(method) \(path) HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            #expect(try client.readResponse().status == status)
        }
    }
}

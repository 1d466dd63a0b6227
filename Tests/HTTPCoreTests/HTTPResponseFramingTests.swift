import HTTPCore
import Testing

/// A stream that is never pulled: framing looks only at the body's kind and announced length.
private final class UnpulledSource: HTTPBodySource {
    func next(maxBytes: Int, deliver: @escaping @Sendable (HTTPBodyChunk) -> Void) {}
    func cancel() {}
}

/// A file region that is never read.
private final class UnreadRegion: HTTPFileRegion {
    let descriptor: Int32 = -1
    let offset = 0
    let count: Int
    init(count: Int) { self.count = count }
}

@Suite struct HTTPResponseFramingTests {
    private func framing(
        _ body: HTTPResponseBody, status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), head: Bool = false,
        version: HTTPVersion = .http1_1
    ) -> HTTPResponse.WireFraming {
        HTTPResponse(status: status, headers: headers, body: body).wireFraming(respondingToHEAD: head, version: version)
    }

    @Test func bytesAndFilesAreSentWithTheirLength() {
        #expect(framing(.bytes([1, 2, 3])) == .init(framing: .contentLength(3), sendsContent: true))
        #expect(
            framing(.file(UnreadRegion(count: 70_000))) == .init(framing: .contentLength(70_000), sendsContent: true))
        #expect(framing(.empty) == .init(framing: .contentLength(0), sendsContent: true))
    }

    @Test func aStreamOfAnnouncedLengthIsSentWithIt() {
        #expect(
            framing(.stream(UnpulledSource(), length: 1000)) == .init(framing: .contentLength(1000), sendsContent: true)
        )
    }

    @Test func aStreamOfUnknownLengthIsChunkedForHTTP11() {
        #expect(framing(.stream(UnpulledSource(), length: nil)) == .init(framing: .chunked, sendsContent: true))
    }

    /// HTTP/1.0 has no chunked coding: only the close can end the content (RFC 9112 §6.3).
    @Test func aStreamOfUnknownLengthIsCloseDelimitedForHTTP10() {
        let wire = framing(.stream(UnpulledSource(), length: nil), version: .http1_0)
        #expect(wire == .init(framing: .closeDelimited, sendsContent: true, closesConnection: true))
    }

    /// 1xx, 204 and 304 carry no content and no Content-Length (RFC 9110 §8.6), whatever the body says.
    @Test(arguments: [HTTPStatus.noContent, HTTPStatus(code: 304), HTTPStatus.continue])
    func statusesWithoutContentHaveNoFraming(status: HTTPStatus) {
        #expect(framing(.bytes([1, 2]), status: status) == .init(framing: .none, sendsContent: false))
        #expect(
            framing(.stream(UnpulledSource(), length: nil), status: status)
                == .init(framing: .none, sendsContent: false))
        #expect(framing(.empty, status: status, head: true) == .init(framing: .none, sendsContent: false))
    }

    /// HEAD gets the framing a GET would have and no content (RFC 9110 §9.3.2).
    @Test func headAnnouncesTheLengthAGetWouldHaveWithoutContent() {
        #expect(framing(.bytes([1, 2, 3]), head: true) == .init(framing: .contentLength(3), sendsContent: false))
        #expect(
            framing(.stream(UnpulledSource(), length: 9), head: true)
                == .init(framing: .contentLength(9), sendsContent: false))
        #expect(
            framing(.stream(UnpulledSource(), length: nil), head: true) == .init(framing: .chunked, sendsContent: false)
        )
    }

    /// A handler answering HEAD without content states the length in its own Content-Length field.
    @Test func headUsesTheHandlersContentLengthWhenTheBodyHasNone() {
        let declared = HTTPHeaders([("Content-Length", "4096")])
        #expect(
            framing(.empty, headers: declared, head: true) == .init(framing: .contentLength(4096), sendsContent: false))
        #expect(framing(.empty, head: true) == .init(framing: .contentLength(0), sendsContent: false))
        let stream = HTTPResponseBody.stream(UnpulledSource(), length: nil)
        #expect(
            framing(stream, headers: declared, head: true) == .init(framing: .contentLength(4096), sendsContent: false))
        // A GET ignores the handler's field: the server frames what it sends.
        #expect(framing(.empty, headers: declared) == .init(framing: .contentLength(0), sendsContent: true))
        let negative = HTTPHeaders([("Content-Length", "-1")])
        #expect(
            framing(.empty, headers: negative, head: true) == .init(framing: .contentLength(0), sendsContent: false))
    }

    /// A HEAD answer over HTTP/1.0 has nothing to delimit, so its framing does not close the connection.
    @Test func headOverHTTP10OfUnknownLengthKeepsTheConnection() {
        let wire = framing(.stream(UnpulledSource(), length: nil), head: true, version: .http1_0)
        #expect(wire == .init(framing: .none, sendsContent: false))
    }

    @Test func connectionCloseFromTheHandlerIsSeenAmongOtherOptions() {
        let asks = HTTPResponse(status: .ok, headers: HTTPHeaders([("Connection", "x-custom, Close")]))
        let keeps = HTTPResponse(status: .ok, headers: HTTPHeaders([("Connection", "keep-alive")]))
        #expect(asks.asksToCloseConnection)
        #expect(!keeps.asksToCloseConnection)
        #expect(!HTTPResponse(status: .ok).asksToCloseConnection)
    }
}

import HTTPCore
import TestSupport
import Testing
import Upstream

struct OriginClientLimitsTests {
    private func fetch(
        _ response: StubOriginResponse,
        limits: OriginLimits = OriginLimits(connectTimeout: .seconds(5), totalTimeout: .seconds(10))
    ) async throws -> (RecordingFetchDelegate, StubOrigin, Result<OriginFetchMetrics, OriginError>) {
        let origin = try StubOrigin()
        origin.respond(to: "/x", with: response)
        let client = makeLoopbackClient(limits: limits)
        let delegate = RecordingFetchDelegate()
        client.fetch(OriginRequest(url: origin.url("/x")), delegate: delegate)
        let result = try #require(await delegate.finished(timeout: .seconds(15)))
        return (delegate, origin, result)
    }

    private func error(of result: Result<OriginFetchMetrics, OriginError>) -> OriginError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test func connectTimeoutEndsAHandshakeThatNeverCompletes() async throws {
        let blackhole = try StubOriginBlackhole()
        let client = makeLoopbackClient(
            limits: OriginLimits(connectTimeout: .milliseconds(300), totalTimeout: .seconds(30)))
        let delegate = RecordingFetchDelegate()
        let started = ContinuousClock.now
        client.fetch(OriginRequest(url: blackhole.url("/")), delegate: delegate)
        let error = try #require(await delegate.error(timeout: .seconds(10)))
        guard case .timeout = error else {
            Issue.record("expected timeout, got \(error)")
            return
        }
        #expect(error.httpStatus == 504)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func totalTimeoutEndsAnOriginThatNeverAnswers() async throws {
        let started = ContinuousClock.now
        let (delegate, origin, result) = try await fetch(
            .silent, limits: OriginLimits(connectTimeout: .seconds(5), totalTimeout: .milliseconds(400)))
        guard case .timeout? = error(of: result) else {
            Issue.record("expected timeout, got \(result)")
            return
        }
        #expect(origin.requestCount == 1)
        #expect(delegate.head == nil)
        // A liveness bound, far above the 400 ms limit: the fetch must not hang on a silent origin.
        #expect(ContinuousClock.now - started < .seconds(8))
    }

    @Test func totalTimeoutEndsATricklingBody() async throws {
        let slow = StubOriginResponse.ok(bytes: Array(repeating: 1, count: 1000)).trickled(
            chunkSize: 10, every: .milliseconds(50))
        let (_, _, result) = try await fetch(
            slow, limits: OriginLimits(connectTimeout: .seconds(5), totalTimeout: .milliseconds(400)))
        guard case .timeout? = error(of: result) else {
            Issue.record("expected timeout, got \(result)")
            return
        }
    }

    @Test func bodyOverTheLimitByContentLengthIsRefusedBeforeAnyByte() async throws {
        let (delegate, _, result) = try await fetch(
            .ok(bytes: Array(repeating: 2, count: 10_000)), limits: OriginLimits(maxBodyBytes: 1000))
        #expect(error(of: result) == .bodyTooLarge(limit: 1000))
        #expect(delegate.head == nil)
        #expect(delegate.bodyCount == 0)
    }

    @Test func streamingBodyOverTheLimitIsAbortedAtTheLimit() async throws {
        let (delegate, _, result) = try await fetch(.endless(), limits: OriginLimits(maxBodyBytes: 100_000))
        #expect(error(of: result) == .bodyTooLarge(limit: 100_000))
        #expect(delegate.bodyCount <= 100_000)
        #expect(delegate.bodyCount > 0)
    }

    @Test func bodyExactlyAtTheLimitSucceeds() async throws {
        let (delegate, _, result) = try await fetch(
            StubOriginResponse.ok(bytes: Array(repeating: 3, count: 1000)).framed(.chunked),
            limits: OriginLimits(maxBodyBytes: 1000))
        #expect(try result.get().bodyBytes == 1000)
        #expect(delegate.bodyCount == 1000)
    }

    @Test func headersOverTheLimitAreRefused() async throws {
        var response = StubOriginResponse.ok("x")
        for index in 0..<50 { response = response.header("X-Filler-\(index)", String(repeating: "v", count: 200)) }
        let (delegate, _, result) = try await fetch(response, limits: OriginLimits(maxHeaderBytes: 4096))
        #expect(error(of: result) == .headersTooLarge(limit: 4096))
        #expect(delegate.head == nil)
    }

    @Test func resetMidBodyIsAnError() async throws {
        let response = StubOriginResponse.ok(bytes: Array(repeating: 4, count: 100_000)).trickled(chunkSize: 10_000)
            .ending(.resetAfter(bytes: 30_000))
        let (delegate, _, result) = try await fetch(response)
        guard case .protocolError? = error(of: result) else {
            Issue.record("expected protocolError, got \(result)")
            return
        }
        #expect(delegate.bodyCount < 100_000)
    }

    @Test(arguments: [StubOriginResponse.Framing.contentLength, .chunked])
    func fewerBytesThanAnnouncedIsAnError(framing: StubOriginResponse.Framing) async throws {
        let response = StubOriginResponse.ok(bytes: Array(repeating: 5, count: 10_000)).framed(framing)
            .ending(.closeAfter(bytes: 4000))
        let (_, _, result) = try await fetch(response)
        guard case .protocolError? = error(of: result) else {
            Issue.record("expected protocolError, got \(result)")
            return
        }
    }

    @Test func moreBytesThanAnnouncedDeliversOnlyTheAnnouncedOnes() async throws {
        let response = StubOriginResponse.ok(bytes: Array(repeating: 6, count: 20)).declaring(contentLength: 10)
        let (delegate, _, result) = try await fetch(response)
        #expect(try result.get().bodyBytes == 10)
        #expect(delegate.bodyCount == 10)
    }

    @Test func closeDelimitedBodyIsComplete() async throws {
        let response = StubOriginResponse.ok(bytes: Array(repeating: 8, count: 5000)).framed(.closeDelimited)
        let (delegate, _, result) = try await fetch(response)
        #expect(try result.get().bodyBytes == 5000)
        #expect(delegate.bodyCount == 5000)
    }

    @Test(arguments: [
        "HELLO\r\n\r\n", "HTTP/1.1 2000 Odd\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello", "",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    ])
    func malformedResponsesAreOriginErrors(raw: String) async throws {
        let (_, _, result) = try await fetch(.raw(raw))
        guard case .failure(let error) = result else {
            Issue.record("\(raw.debugDescription) succeeded")
            return
        }
        #expect(error.httpStatus == 502, "\(raw.debugDescription): \(error)")
    }

    @Test func requestLimitsOverrideTheClients() async throws {
        let origin = try StubOrigin()
        origin.respond(to: "/x", with: .ok(bytes: Array(repeating: 9, count: 5000)))
        let client = makeLoopbackClient(limits: OriginLimits(maxBodyBytes: 100))
        let strict = RecordingFetchDelegate()
        let relaxed = RecordingFetchDelegate()
        client.fetch(OriginRequest(url: origin.url("/x")), delegate: strict)
        client.fetch(
            OriginRequest(url: origin.url("/x"), limits: OriginLimits(maxBodyBytes: 10_000)), delegate: relaxed)
        #expect(await strict.error() == .bodyTooLarge(limit: 100))
        #expect(try #require(await relaxed.finished()).get().bodyBytes == 5000)
    }

    @Test(arguments: [
        (OriginError.addressRefused(address: "::1", reason: .ownAddress("[::1]:1")), 403),
        (.invalidURL(reason: "x"), 400), (.invalidRequestHeader(name: "x", reason: "y"), 400),
        (.connectFailed(detail: "x"), 502), (.timeout(detail: "x"), 504), (.bodyTooLarge(limit: 1), 502),
        (.headersTooLarge(limit: 1), 502), (.protocolError(detail: "x"), 502),
    ])
    func errorsMapToStableStatuses(error: OriginError, status: Int) {
        #expect(error.httpStatus == status)
        #expect(!error.kind.isEmpty)
    }
}

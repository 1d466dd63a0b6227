import CacheCore
import CachePolicy
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI
@testable import Upstream

/// When the callers waiting on a miss hear its head. The origin client's callbacks are played by hand
/// on an `InFlightFetch`, in the order libcurl's driver makes them, so each rule is checked at the exact
/// callback it is about: not before the bytes that came with the head (they go out in one write with
/// it), and not after them either (libcurl's read of a large body runs to 1.6 MiB).
@Suite struct InFlightAnnouncementTests {
    @Test func theHeadIsToldWithTheFirstBodyBytesNotAtTheEndOfTheRead() async throws {
        try await withAnnouncingFetch { fetch, handle, told in
            fetch.fetch(handle, didReceiveHead: Self.head(length: 4 << 20))
            #expect(told.status == nil, "the bytes behind the head are not buffered yet")
            fetch.fetch(handle, didReceive: [UInt8](repeating: 7, count: 16 << 10))
            #expect(told.status == 200, "the head waited beyond the first body bytes")
            // More bytes in the same read, and its end, tell nobody twice.
            fetch.fetch(handle, didReceive: [UInt8](repeating: 7, count: 16 << 10))
            fetch.fetchDidEndRead(handle)
        }
    }

    @Test func aHeadWithoutBytesIsToldAtTheEndOfItsRead() async throws {
        try await withAnnouncingFetch { fetch, handle, told in
            fetch.fetch(handle, didReceiveHead: Self.head(length: 4 << 20))
            fetch.fetchDidEndRead(handle)
            #expect(told.status == 200, "a body that comes later must not hold back the head")
        }
    }

    @Test func anEmptyBodyIsToldWhenTheFetchFinishes() async throws {
        try await withAnnouncingFetch { fetch, handle, told in
            fetch.fetch(handle, didReceiveHead: Self.head(length: 0))
            #expect(told.status == nil)
            let metrics = OriginFetchMetrics(
                status: 200, bodyBytes: 0, headerBytes: 64, reusedConnection: false, remoteAddress: "127.0.0.1",
                remotePort: 80, connectTime: .zero, totalTime: .milliseconds(1))
            fetch.fetch(handle, didFinish: .success(metrics))
            #expect(told.status == 200)
        }
    }

    static func head(length: Int) -> OriginResponseHead {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: String(length))
        headers.add(name: "Cache-Control", value: "no-store")
        return OriginResponseHead(status: 200, headers: headers, version: .http1_1)
    }

    /// A bypassing `InFlightFetch` with one waiter, which records the status it was told and fails the test
    /// when told twice. The `OriginFetch` handed to the callbacks is a real one, of a request to the stub
    /// origin that nothing listens to.
    func withAnnouncingFetch(
        _ body: (InFlightFetch, OriginFetch, ToldStatus) throws -> Void
    ) async throws {
        try await withFetchHarness { harness in
            let fetch = InFlightFetch(
                id: 1,
                order: FetchOrder(
                    key: CacheKey.variant(
                        canonicalURL: "http://127.0.0.1/a", varyNames: [], requestHeaders: HTTPHeaders()),
                    url: "http://127.0.0.1/a", keyURL: "http://127.0.0.1/a", decision: .defaultHTTP, stored: nil,
                    requestHeaders: HTTPHeaders(), purpose: .forward(.get, content: nil)),
                interimRecipient: nil, dependencies: harness.service.inFlight)
            let told = ToldStatus()
            let joined = fetch.join { outcome in
                if case .response(let head, _) = outcome { told.record(head.status) } else { told.record(-1) }
            }
            #expect(joined)
            let handle = harness.client.fetch(
                OriginRequest(url: harness.origin.url("/unused")), delegate: IgnoringFetchDelegate())
            try body(fetch, handle, told)
            handle.cancel()
        }
    }
}

/// The status a waiter was told; telling it twice fails the test.
final class ToldStatus: Sendable {
    private let told = Mutex<Int?>(nil)

    var status: Int? { told.withLock { $0 } }

    func record(_ status: Int) {
        let earlier = told.withLock { told in
            defer { told = status }
            return told
        }
        #expect(earlier == nil, "a waiter was told twice")
    }
}

/// A delegate that drops everything: the tests only need the fetch's handle.
final class IgnoringFetchDelegate: OriginFetchDelegate {
    func fetch(_ fetch: OriginFetch, didReceiveHead head: OriginResponseHead) {}
    func fetch(_ fetch: OriginFetch, didReceive bytes: [UInt8]) {}
    func fetch(_ fetch: OriginFetch, didFinish result: Result<OriginFetchMetrics, OriginError>) {}
}

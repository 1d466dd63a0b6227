import CacheCore
import CachePolicy
import Dispatch
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI
@testable import Upstream

/// How long a caller waits on a shared fetch for its head (`FetchConfiguration.waiterTimeout`). The service
/// keeps one clock for every waiting caller (`WaiterClock`), and a caller leaves it with its answer, so a
/// caller is held only while it waits: under a flood of misses a timer per caller kept every caller (and
/// its connection) alive for the whole timeout.
@Suite struct InFlightWaiterDeadlineTests {
    @Test func anAnsweredWaiterIsReleasedAtOnceNotAtItsDeadline() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(waiterTimeout: .seconds(60))) { harness in
            let fetch = Self.makeFetch(harness)
            weak var released: Canary?
            let told = ToldStatus()
            do {
                let canary = Canary()
                released = canary
                #expect(
                    fetch.join { outcome in
                        withExtendedLifetime(canary) {}
                        if case .response(let head, _) = outcome { told.record(head.status) } else { told.record(-1) }
                    })
            }
            #expect(released != nil, "the waiter is held while it waits")
            #expect(harness.service.inFlight.waiterClock.waitingCount == 1)
            let handle = harness.client.fetch(
                OriginRequest(url: harness.origin.url("/unused")), delegate: IgnoringFetchDelegate())
            defer { handle.cancel() }
            fetch.fetch(handle, didReceiveHead: InFlightAnnouncementTests.head(length: 4))
            fetch.fetch(handle, didReceive: [1, 2, 3, 4])
            #expect(told.status == 200)
            #expect(released == nil, "the answered waiter is still held, 60 s before its deadline")
            #expect(harness.service.inFlight.waiterClock.waitingCount == 0, "the answered caller is still on the clock")
        }
    }

    @Test func waitersExpireEachAtTheirOwnDeadlineAndTheFetchGoesOn() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(waiterTimeout: .seconds(1))) { harness in
            let fetch = Self.makeFetch(harness)
            let log = OutcomeLog()
            #expect(fetch.join { log.record("first", $0) })
            try await Task.sleep(for: .milliseconds(600))
            #expect(fetch.join { log.record("second", $0) })

            #expect(await log.waitFor("first", timeout: .seconds(10)) == "expired")
            #expect(log.outcome(of: "second") == nil, "the second caller's deadline is its own, 600 ms later")
            #expect(await log.waitFor("second", timeout: .seconds(10)) == "expired")

            // The fetch itself goes on: a caller joining now gets its answer.
            #expect(fetch.join { log.record("third", $0) })
            let handle = harness.client.fetch(
                OriginRequest(url: harness.origin.url("/unused")), delegate: IgnoringFetchDelegate())
            defer { handle.cancel() }
            fetch.fetch(handle, didReceiveHead: InFlightAnnouncementTests.head(length: 4))
            fetch.fetch(handle, didReceive: [1, 2, 3, 4])
            #expect(log.outcome(of: "third") == "200")
            #expect(log.count == 3, "an expired caller was told again")
        }
    }

    static func makeFetch(_ harness: FetchTestHarness) -> InFlightFetch {
        InFlightFetch(
            id: 1,
            order: FetchOrder(
                key: CacheKey.variant(canonicalURL: "http://127.0.0.1/d", varyNames: [], requestHeaders: HTTPHeaders()),
                url: "http://127.0.0.1/d", keyURL: "http://127.0.0.1/d", decision: .defaultHTTP, stored: nil,
                requestHeaders: HTTPHeaders(), purpose: .forward(.get, content: nil)),
            interimRecipient: nil, dependencies: harness.service.inFlight)
    }
}

/// An object whose lifetime shows whether a waiter is still held.
private final class Canary: Sendable {}

/// What each named waiter was told, in order.
private final class OutcomeLog: Sendable {
    private let told = Mutex<[(name: String, outcome: String)]>([])

    var count: Int { told.withLock { $0.count } }

    func record(_ name: String, _ outcome: InFlightOutcome) {
        told.withLock { $0.append((name, outcome.label)) }
    }

    func outcome(of name: String) -> String? {
        told.withLock { told in told.first { $0.name == name }?.outcome }
    }

    func waitFor(_ name: String, timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let outcome = outcome(of: name) { return outcome }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

extension InFlightOutcome {
    /// The outcome in a word, for tests' logs of what each caller was told: the response status, or the kind.
    var label: String {
        switch self {
        case .response(let head, _): String(head.status)
        case .revalidated: "revalidated"
        case .failure: "failure"
        case .waitExpired: "expired"
        }
    }
}

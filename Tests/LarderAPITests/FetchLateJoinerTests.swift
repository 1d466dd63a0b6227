import CacheCore
import CachePolicy
import Dispatch
import Foundation
import HTTPCore
import Storage
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

/// Who may join a fetch that is under way (`InFlightBody.addReader`, `FetchHandler.answer`), checked in the
/// windows where the rule matters: after a body ended but before its fetch left the registry (it leaves on
/// its store-writer queue, which the tests hold), and before the head (request collapsing, RFC 9111 §4).
@Suite struct FetchLateJoinerTests {
    /// Callers wait on a held fetch as long as the test needs, however busy the machine.
    static let patient = FetchConfiguration(waiterTimeout: .seconds(120))

    /// A response that is not stored: refused by RFC 9111 (`no-store`), or storable under RFC 9111 §3 and
    /// refused by Larder's own bound (the filter's `maxBytes`).
    struct NotStored: Sendable, CustomTestStringConvertible {
        let path: String
        let cacheControl: String
        let decision: FilterDecision
        /// Also the Cache-Status detail that says why it was not stored.
        let reason: String
        var testDescription: String { reason }
    }

    static let notStored = [
        NotStored(path: "/no-store", cacheControl: "no-store", decision: .defaultHTTP, reason: "no-store"),
        NotStored(
            path: "/large", cacheControl: "max-age=600", decision: FilterDecision(filterName: "small", maxBytes: 4),
            reason: "maxBytes"),
    ]

    @Test(arguments: notStored)
    func aCallerAfterANotStoredBodyEndedGetsItsOwnResponse(_ kind: NotStored) async throws {
        try await withFetchHarness(decision: kind.decision, configuration: Self.patient) { harness in
            let answers = Atomic<Int>(0)
            harness.origin.respond(to: kind.path) { _ in
                .ok("answer \(answers.add(1, ordering: .relaxed).newValue)").header("Cache-Control", kind.cacheControl)
            }
            let hold = StoreWritersHold(harness.service.inFlight.storeWriters)
            defer { hold.release() }
            let first = try await offPool { try harness.fetch(kind.path) }
            #expect(first.text == "answer 1")
            #expect(first.header("Cache-Status")?.contains(kind.reason) == true)
            #expect(first.header("Cache-Status")?.contains("stored") == false)
            // The window: the first body ended, and its fetch is still listed (it leaves on a held queue).
            #expect(harness.service.inFlightCount == 1)
            let second = try await offPool { try harness.fetch(kind.path) }
            #expect(second.text == "answer 2")
            #expect(second.header("Cache-Status")?.contains("collapsed") == false)
            #expect(harness.service.metrics.coalescedCount == 0)
            #expect(harness.origin.requestCount(for: kind.path) == 2)
            hold.release()
            #expect(await harness.settle())
            #expect(try harness.store.stats().entryCount == 0)
        }
    }

    @Test func aRangeRequestAfterTheBodyEndedIsAnsweredFromTheCommittedEntry() async throws {
        try await withFetchHarness(configuration: Self.patient) { harness in
            let body = CacheCoreFixtures.randomBody(length: 10_000)
            harness.origin.respond(to: "/ranged", with: .ok(bytes: body).header("Cache-Control", "max-age=600"))
            let hold = StoreWritersHold(harness.service.inFlight.storeWriters)
            defer { hold.release() }
            let first = try await offPool { try harness.fetch("/ranged") }
            #expect(first.status == 200)
            #expect(sameBytes(first.body, body))
            // Not committed (its writer is not even open) and still listed: the range request joins it.
            #expect(harness.service.inFlightCount == 1)
            let ranged = BackgroundWork { try harness.fetch("/ranged", headers: [("Range", "bytes=100-199")]) }
            #expect(await harness.waitForWaiters(2))
            hold.release()
            let response = try await ranged.value()
            #expect(response.status == 206)
            #expect(response.header("Content-Range") == "bytes 100-199/10000")
            #expect(sameBytes(response.body, Array(body[100..<200])))
            #expect(harness.origin.requestCount(for: "/ranged") == 1)
            #expect(await harness.settle())
        }
    }

    /// A response and a later caller's request, and whether the caller may reuse the response under way
    /// as it is, or only once validated (RFC 9111 §4: to a caller who comes after it, it is a stored one).
    struct Reuse: Sendable, CustomTestStringConvertible {
        let path: String
        let cacheControl: String
        let requestFields: [(String, String)]
        let reusable: Bool
        var testDescription: String { "\(cacheControl) \(requestFields.map { "\($0.0): \($0.1)" })" }
    }

    static let reuses = [
        Reuse(path: "/no-cache", cacheControl: "no-cache", requestFields: [], reusable: false),
        Reuse(path: "/zero", cacheControl: "max-age=0", requestFields: [], reusable: false),
        Reuse(
            path: "/asks-fresh", cacheControl: "max-age=600", requestFields: [("Cache-Control", "no-cache")],
            reusable: false),
        Reuse(path: "/fresh", cacheControl: "max-age=600", requestFields: [], reusable: true),
    ]

    @Test(arguments: reuses)
    func aCallerAfterTheHeadReusesTheResponseOnlyAsAStoredOne(_ reuse: Reuse) async throws {
        try await withFetchHarness(configuration: Self.patient) { harness in
            let answers = Atomic<Int>(0)
            harness.origin.respond(to: reuse.path) { request in
                if request.headers["If-None-Match"] == "\"v1\"" {
                    return .status(304, headers: [("ETag", "\"v1\""), ("Cache-Control", reuse.cacheControl)])
                }
                return .ok("answer \(answers.add(1, ordering: .relaxed).newValue)")
                    .header("Cache-Control", reuse.cacheControl).header("ETag", "\"v1\"")
            }
            let hold = StoreWritersHold(harness.service.inFlight.storeWriters)
            defer { hold.release() }
            let first = try await offPool { try harness.fetch(reuse.path) }
            #expect(first.text == "answer 1")
            // The window: the first body ended, and its fetch is still listed (it commits on a held queue).
            #expect(harness.service.inFlightCount == 1)
            let second = BackgroundWork { try harness.fetch(reuse.path, headers: reuse.requestFields) }
            #expect(await harness.waitForWaiters(2))
            hold.release()
            let response = try await second.value()
            #expect(response.status == 200)
            #expect(response.text == "answer 1")
            if reuse.reusable {
                #expect(response.header("Cache-Status")?.contains("collapsed") == true)
                #expect(harness.origin.requestCount(for: reuse.path) == 1)
            } else {
                #expect(response.header("X-Cache") == "REVALIDATED")
                #expect(harness.origin.requestCount(for: reuse.path) == 2)
                #expect(harness.origin.requests(for: reuse.path).last?.headers["If-None-Match"] == "\"v1\"")
            }
            #expect(await harness.settle())
        }
    }

    @Test func aRangeRequestCollapsedBeforeTheHeadGetsTheRangeOnceStored() async throws {
        try await withFetchHarness(configuration: Self.patient) { harness in
            let body = CacheCoreFixtures.randomBody(length: 10_000)
            let gate = OriginGate()
            harness.origin.respond(to: "/collapsed-range") { _ in
                gate.pass()
                return .ok(bytes: body).header("Cache-Control", "max-age=600")
            }
            let whole = try harness.open("GET", harness.fetchPath("/collapsed-range"))
            #expect(await harness.origin.waitForRequests(1, timeout: .seconds(20)))
            let ranged = try harness.open(
                "GET", harness.fetchPath("/collapsed-range"), headers: [("Range", "bytes=-10")])
            #expect(await harness.waitForWaiters(2))
            gate.open()
            let full = try whole.readResponse()
            whole.close()
            #expect(full.status == 200)
            #expect(sameBytes(full.body, body))
            let tail = try ranged.readResponse()
            ranged.close()
            #expect(tail.status == 206)
            #expect(tail.header("Content-Range") == "bytes 9990-9999/10000")
            #expect(sameBytes(tail.body, Array(body[9990...])))
            #expect(harness.origin.requestCount(for: "/collapsed-range") == 1)
        }
    }

    @Test func callersCollapsedOntoANoStoreResponseForwardTheirOwnRequests() async throws {
        try await withFetchHarness(configuration: Self.patient) { harness in
            let answers = Atomic<Int>(0)
            let gate = OriginGate()
            harness.origin.respond(to: "/collapsed-no-store") { _ in
                let number = answers.add(1, ordering: .relaxed).newValue
                // The first answer waits until the second caller collapsed onto its fetch.
                if number == 1 { gate.pass() }
                return .ok("answer \(number)").header("Cache-Control", "no-store")
            }
            let first = try harness.open("GET", harness.fetchPath("/collapsed-no-store"))
            #expect(await harness.origin.waitForRequests(1, timeout: .seconds(20)))
            let second = try harness.open("GET", harness.fetchPath("/collapsed-no-store"))
            #expect(await harness.waitForWaiters(2))
            gate.open()
            let texts = [try first.readResponse().text, try second.readResponse().text]
            first.close()
            second.close()
            #expect(Set(texts) == ["answer 1", "answer 2"])
            #expect(harness.origin.requestCount(for: "/collapsed-no-store") == 2)
        }
    }

    @Test func callersCollapsedOntoAStorableResponseLarderDoesNotStoreShareIt() async throws {
        // RFC 9111 §4: a storable response may answer every collapsed request, stored or not.
        let bounded = FilterDecision(filterName: "small", maxBytes: 4)
        try await withFetchHarness(decision: bounded, configuration: Self.patient) { harness in
            let gate = OriginGate()
            harness.origin.respond(to: "/shared") { _ in
                gate.pass()
                return .ok("shared answer").header("Cache-Control", "max-age=600")
            }
            let first = try harness.open("GET", harness.fetchPath("/shared"))
            #expect(await harness.origin.waitForRequests(1, timeout: .seconds(20)))
            let second = try harness.open("GET", harness.fetchPath("/shared"))
            #expect(await harness.waitForWaiters(2))
            gate.open()
            #expect(try first.readResponse().text == "shared answer")
            let collapsed = try second.readResponse()
            first.close()
            second.close()
            #expect(collapsed.text == "shared answer")
            #expect(collapsed.header("Cache-Status")?.contains("collapsed") == true)
            #expect(harness.origin.requestCount(for: "/shared") == 1)
        }
    }
}

/// Holds both of the service's store-writer queues (`FetchService`'s width is 2) until `release()`: a fetch
/// leaves the registry on its store queue, so until then every fetch stays listed, whatever the machine's
/// load. Each hold gives up after 300 s (a test releases it on every way out; this is for a crash).
final class StoreWritersHold: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let released = Mutex(false)

    init(_ writers: StorageExecutor, queues: Int = 2) {
        for _ in 0..<queues {
            writers.submit { [gate] in
                _ = gate.wait(timeout: .now() + 300)
                gate.signal()
            }
        }
    }

    /// Lets the queues go on (once; later calls do nothing).
    func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { gate.signal() }
    }
}

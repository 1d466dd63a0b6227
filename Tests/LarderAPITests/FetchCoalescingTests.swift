import CacheCore
import Foundation
import HTTPCore
import LarderAPI
import Storage
import TestSupport
import Testing

/// Concurrent misses for one key share one origin fetch (`InFlightFetch`, `InFlightBodySource`,
/// `InFlightRegistry`), and `GET /fetches` shows it while it runs.
@Suite struct FetchCoalescingTests {
    @Test func hundredConcurrentMissesMakeOneOriginRequest() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.randomBody(length: 64 * 1024)
            // The origin holds its answer until every caller has joined the fetch.
            let gate = OriginGate()
            harness.origin.respond(to: "/cold") { _ in
                gate.pass()
                return .ok(bytes: body).header("Cache-Control", "max-age=60").trickled(chunkSize: 8192)
            }
            var clients: [RawSocketClient] = []
            for _ in 0..<100 { clients.append(try harness.open("GET", harness.fetchPath("/cold"))) }
            #expect(await harness.waitForWaiters(100))
            gate.open()
            var collapsed = 0
            for client in clients {
                let response = try client.readResponse()
                client.close()
                #expect(response.status == 200)
                #expect(sameBytes(response.body, body))
                if response.header("Cache-Status")?.contains("collapsed") == true { collapsed += 1 }
            }
            #expect(harness.origin.requestCount(for: "/cold") == 1)
            #expect(collapsed == 99)
            #expect(await harness.settle())
            #expect(try harness.fetch("/cold").header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/cold") == 1)
        }
    }

    @Test func callerThatLeavesDoesNotCancelTheFetchForOthers() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.randomBody(length: 32 * 1024)
            harness.origin.respond(
                to: "/s",
                with: .ok(bytes: body).header("Cache-Control", "max-age=60").trickled(
                    chunkSize: 4096, every: .milliseconds(20)))
            let leaver = try harness.open("GET", harness.fetchPath("/s"))
            let stayer = try harness.open("GET", harness.fetchPath("/s"))
            #expect(await harness.origin.waitForRequests(1, timeout: .seconds(20)))
            _ = try leaver.readSome(upTo: 100)
            leaver.close(reset: true)
            let response = try stayer.readResponse()
            stayer.close()
            #expect(sameBytes(response.body, body))
            #expect(await harness.settle())
            #expect(harness.origin.requestCount(for: "/s") == 1)
            #expect(try harness.store.stats().entryCount == 1)
        }
    }

    @Test func waitersBeyondTheCapAre503() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(maxWaiters: 2)) { harness in
            let gate = OriginGate()
            harness.origin.respond(to: "/c") { _ in
                gate.pass()
                return .ok("c")
            }
            let first = try harness.open("GET", harness.fetchPath("/c"))
            let second = try harness.open("GET", harness.fetchPath("/c"))
            #expect(await harness.waitForWaiters(2))
            let third = try harness.fetch("/c")
            gate.open()
            #expect(third.status == 503)
            #expect(third.text.contains("too-many-waiters"))
            #expect(try first.readResponse().text == "c")
            #expect(try second.readResponse().text == "c")
            first.close()
            second.close()
            #expect(harness.origin.requestCount(for: "/c") == 1)
        }
    }

    @Test func waiterGivesUpAfterItsTimeout() async throws {
        try await withFetchHarness(configuration: FetchConfiguration(waiterTimeout: .milliseconds(200))) { harness in
            harness.origin.respond(to: "/w", with: .silent)
            let response = try harness.fetch("/w")
            #expect(response.status == 504)
            #expect(response.text.contains("waiter-timeout"))
            #expect(harness.origin.requestCount(for: "/w") == 1)
        }
    }

    @Test func fetchesListsTheFetchUnderWay() async throws {
        try await withFetchHarness { harness in
            let gate = OriginGate()
            harness.origin.respond(to: "/p") { _ in
                gate.pass()
                return .ok(bytes: Array(repeating: 1, count: 8192))
            }
            let caller = try harness.open("GET", harness.fetchPath("/p"))
            defer { caller.close() }
            #expect(await harness.origin.waitForRequests(1, timeout: .seconds(20)))
            let listing = try harness.request("GET", "/fetches")
            #expect(listing.status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any])
            let fetches = try #require(json["fetches"] as? [[String: Any]])
            #expect(fetches.count == 1)
            #expect(fetches.first?["url"] as? String == harness.origin.url("/p"))
            #expect(fetches.first?["key"] as? String == harness.key("/p"))
            #expect(fetches.first?["waiters"] as? Int == 1)
            #expect(fetches.first?["started"] is String)
            gate.open()
            #expect(try caller.readResponse().body.count == 8192)
            #expect(await harness.settle())
            let after = try harness.request("GET", "/fetches")
            #expect(after.text == #"{"fetches":[]}"#)
        }
    }
}

/// What must not be shared by coalescing: credentials and other `Vary` variants.
@Suite struct FetchCoalescingLimitsTests {
    @Test func requestWithAuthorizationGetsAFetchOfItsOwn() async throws {
        try await withFetchHarness { harness in
            let gate = OriginGate()
            harness.origin.respond(to: "/me") { request in
                gate.pass()
                return .ok(request.headers["Authorization"] == nil ? "anonymous" : "private")
            }
            let authorized = try harness.open("GET", harness.fetchPath("/me"), headers: [("Authorization", "Bearer x")])
            #expect(await harness.origin.waitForRequests(1, timeout: .seconds(20)))
            let anonymous = try harness.open("GET", harness.fetchPath("/me"))
            #expect(await harness.origin.waitForRequests(2, timeout: .seconds(20)))
            gate.open()
            #expect(try authorized.readResponse().text == "private")
            #expect(try anonymous.readResponse().text == "anonymous")
            authorized.close()
            anonymous.close()
            #expect(harness.origin.requestCount(for: "/me") == 2)
        }
    }

    @Test func joinerOfAnotherVaryVariantFetchesItsOwn() async throws {
        try await withFetchHarness { harness in
            let gate = OriginGate()
            harness.origin.respond(to: "/lang") { request in
                gate.pass()
                return .ok("in \(request.headers["Accept-Language"] ?? "none")").header("Vary", "Accept-Language")
                    .header("Cache-Control", "max-age=60")
            }
            let french = try harness.open("GET", harness.fetchPath("/lang"), headers: [("Accept-Language", "fr")])
            let german = try harness.open("GET", harness.fetchPath("/lang"), headers: [("Accept-Language", "de")])
            #expect(await harness.waitForWaiters(2))
            gate.open()
            // Whichever caller joined the other's fetch learns from the head that it needs its own.
            let first = try french.readResponse()
            let second = try german.readResponse()
            #expect(first.text == "in fr")
            #expect(second.text == "in de")
            let refetched = [first, second].filter { $0.header("Cache-Status")?.contains("fwd=vary-miss") == true }
            #expect(refetched.count == 1)
            french.close()
            german.close()
            #expect(harness.origin.requestCount(for: "/lang") == 2)
        }
    }
}

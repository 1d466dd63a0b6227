import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import Testing

/// What goes into the store (RFC 9111 §3 and the owning filter), and the entry a fetched response
/// becomes: its key, lifetime and how long it is kept; a 304 freshening it (§4.3.4).
@Suite struct StoreAdmissionTests {
    static let cacheable: [(String, String)] = [("Cache-Control", "max-age=60"), ("Content-Type", "image/png")]

    private func admit(
        status: Int = 200, _ fields: [(String, String)] = cacheable, request: [(String, String)] = [],
        decision: FilterDecision = .defaultHTTP, revalidating: Bool = false
    ) -> StoreAdmission {
        StoreAdmission.evaluate(
            facts: ResponseFacts(
                status: status, headers: HTTPHeaders(fields), requestTime: 0, responseTime: 0, targets: .standard),
            requestHeaders: HTTPHeaders(request), decision: decision, revalidating: revalidating)
    }

    @Test func aCacheableResponseIsStored() {
        #expect(admit() == StoreAdmission(stored: true))
    }

    @Test func storabilityRefusesWithItsReason() {
        let refused = admit([("Cache-Control", "no-store")])
        #expect(!refused.stored)
        #expect(refused.refusal == "no-store")
        #expect(!refused.storable)
        #expect(admit([("Cache-Control", "max-age=60")], request: [("Cache-Control", "no-store")]).stored == false)
        // The filter may ignore the response's no-store, never the request's.
        let ignoring = FilterDecision(filterName: "f", ignoreNoStore: true)
        #expect(admit([("Cache-Control", "no-store, max-age=60")], decision: ignoring).stored)
    }

    @Test func anOriginErrorNeverReplacesAnEntryBeingRevalidated() {
        let error = [("Cache-Control", "max-age=60")]
        #expect(admit(status: 503, error, revalidating: true).refusal == "origin error kept out of the store")
        #expect(!admit(status: 503, error, revalidating: true).stored)
    }

    @Test func aResponseRefusedByLarderOwnChoiceIsStillStorable() {
        // The filter's byte bound and content types are Larder's choices: RFC 9111 §3 allows storing the
        // response, so callers collapsed onto it may share it (§4).
        let bounded = FilterDecision(filterName: "f", maxBytes: 10)
        let large = admit([("Cache-Control", "max-age=60"), ("Content-Length", "100")], decision: bounded)
        #expect(!large.stored)
        #expect(large.storable)
        #expect(!admit(status: 503, [("Cache-Control", "max-age=60")], revalidating: true).stored)
        #expect(admit(status: 503, [("Cache-Control", "max-age=60")], revalidating: true).storable)
        #expect(!admit([("Cache-Control", "private, max-age=60")]).storable)
        #expect(!StoreAdmission.bypass.storable)
    }

    @Test func theFilterContentTypesAndByteBoundApply() {
        let pngOnly = FilterDecision(filterName: "png", contentTypes: ["image/png"])
        #expect(admit(decision: pngOnly).stored)
        #expect(
            admit([("Cache-Control", "max-age=60"), ("Content-Type", "image/gif")], decision: pngOnly).refusal
                == "content type 'image/gif' not admitted")
        let small = FilterDecision(filterName: "small", maxBytes: 10)
        #expect(admit(Self.cacheable + [("Content-Length", "10")], decision: small).stored)
        #expect(
            admit(Self.cacheable + [("Content-Length", "11")], decision: small).refusal
                == StoreAdmission.byteLimitRefusal(10))
        // A validated image is checked on its sniffed type, later: its label does not refuse it here.
        let images = FilterDecision(filterName: "images", contentTypes: ["image/*"], validateImage: true)
        #expect(admit([("Cache-Control", "max-age=60"), ("Content-Type", "text/plain")], decision: images).stored)
        #expect(StoreAdmission.contentTypeRefusal("text/plain", decision: images) != nil)
        #expect(StoreAdmission.contentTypeRefusal("image/webp", decision: images) == nil)
    }

    static let lifetimes = StoredEntry.Lifetimes(
        overrides: .none, staleIfDisconnected: 0, revalidationAllowance: 86_400, targets: .standard)
    static let sent = Date(timeIntervalSince1970: 1_700_000_000)

    private func record(_ fields: [(String, String)], request: [(String, String)] = []) -> StoredEntry {
        StoredEntry.recording(
            status: HTTPStatus(code: 200), headers: HTTPHeaders(fields), url: "https://example.com/a",
            requestHeaders: HTTPHeaders(request), requestTime: Self.sent, responseTime: Self.sent + 1,
            filterName: "f", imageFormat: nil, lifetimes: Self.lifetimes, varyNames: Vary.names(in: HTTPHeaders(fields))
        )
    }

    @Test func aRecordedEntryIsKeyedByItsVariantAndKeptAsLongAsItCanServe() {
        let plain = record([("Cache-Control", "max-age=60")])
        #expect(plain.key == CacheKey.make(canonicalURL: "https://example.com/a"))
        #expect(plain.freshnessLifetime == 60)
        #expect(plain.staleAllowance == 0)
        let varied = record(
            [("Cache-Control", "max-age=60, stale-if-error=300"), ("Vary", "Accept-Encoding"), ("ETag", "\"v\"")],
            request: [("Accept-Encoding", "gzip, br")])
        #expect(varied.varyNames == ["accept-encoding"])
        #expect(
            varied.key
                == CacheKey.variant(
                    canonicalURL: "https://example.com/a", varyNames: ["accept-encoding"],
                    requestHeaders: HTTPHeaders([("Accept-Encoding", "gzip")])))
        #expect(varied.key != plain.key)
        // A validator keeps it for revalidation, longer than its stale-if-error window.
        #expect(varied.staleAllowance == 86_400)
    }

    @Test func aNotModifiedFreshensTheEntryUnlessItNamesAnotherRepresentation() throws {
        let entry = record([("Cache-Control", "max-age=60"), ("ETag", "\"v1\""), ("X-Old", "1")])
        let later = Self.sent + 100
        let fresh = try #require(
            entry.freshened(
                by: HTTPHeaders([("Cache-Control", "max-age=120"), ("ETag", "\"v1\"")]), requestTime: later,
                responseTime: later + 1, lifetimes: Self.lifetimes))
        #expect(fresh.freshnessLifetime == 120)
        #expect(fresh.responseTime == later + 1)
        #expect(fresh.headers["X-Old"] == "1")
        #expect(fresh.key == entry.key)
        let other = entry.freshened(
            by: HTTPHeaders([("ETag", "\"v2\"")]), requestTime: later, responseTime: later, lifetimes: Self.lifetimes)
        #expect(other == nil)
    }
}

import CachePolicy
import Foundation
import HTTPCore
import TestSupport
import Testing

/// Which URL the origin is asked for when a filter's `dropParams` or `ignoreQuery` shape the key: the
/// caller's by default (presigned URLs need every parameter), the key's with `fetchCanonicalURL`.
@Suite struct FetchOriginURLTests {
    static func decision(fetchCanonicalURL: Bool) -> FilterDecision {
        FilterDecision(
            filterName: "no-tracking", canonicalization: URLCanonicalizer.Options(dropParams: [GlobPattern("utm_*")]),
            fetchCanonicalURL: fetchCanonicalURL)
    }

    @Test func byDefaultTheOriginGetsTheCallersParametersAndTheKeyDropsThem() async throws {
        try await withFetchHarness(decision: Self.decision(fetchCanonicalURL: false)) { harness in
            harness.origin.respond(to: "/p", with: .ok("p").header("Cache-Control", "max-age=60"))
            let first = try harness.fetch("/p?id=7&utm_source=mail&X-Amz-Signature=abc")
            #expect(first.status == 200)
            #expect(harness.origin.lastRequest?.target == "/p?id=7&utm_source=mail&X-Amz-Signature=abc")
            #expect(await harness.settle())
            // Another utm_ spelling is the same key: a hit, no second origin request.
            let second = try harness.fetch("/p?id=7&utm_source=web&X-Amz-Signature=abc")
            #expect(second.header("X-Cache") == "HIT")
            #expect(second.header("X-Cache-Key") == first.header("X-Cache-Key"))
            #expect(harness.origin.requestCount(for: "/p") == 1)
        }
    }

    @Test func withFetchCanonicalURLTheOriginNeverSeesTheDroppedParameters() async throws {
        try await withFetchHarness(decision: Self.decision(fetchCanonicalURL: true)) { harness in
            harness.origin.respond(to: "/p", with: .ok("p").header("Cache-Control", "max-age=60"))
            let first = try harness.fetch("/p?utm_campaign=x&id=7")
            #expect(first.status == 200)
            #expect(harness.origin.lastRequest?.target == "/p?id=7")
            #expect(await harness.settle())
            let second = try harness.fetch("/p?id=7&utm_medium=y")
            #expect(second.header("X-Cache") == "HIT")
            #expect(harness.origin.requests(for: "/p").map(\.target) == ["/p?id=7"])
        }
    }
}

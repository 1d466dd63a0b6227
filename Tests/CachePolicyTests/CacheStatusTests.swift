import CachePolicy
import Testing

/// RFC 9211 Cache-Status members and the X-Cache word.
@Suite struct CacheStatusTests {
    @Test(
        arguments: [
            (CacheStatus(hit: true, ttl: 120), "Larder; hit; ttl=120"),
            (CacheStatus(forward: .uriMiss, stored: true), "Larder; fwd=uri-miss; stored"),
            (CacheStatus(forward: .stale, forwardStatus: 304), "Larder; fwd=stale; fwd-status=304"),
            (
                CacheStatus(forward: .bypass, detail: "filter no-images"),
                "Larder; fwd=bypass; detail=\"filter no-images\""
            ),
            (
                CacheStatus(hit: true, ttl: -30, detail: "stale-if-error"),
                "Larder; hit; ttl=-30; detail=\"stale-if-error\""
            ),
            (
                CacheStatus(forward: .varyMiss, forwardStatus: 200, stored: true, collapsed: true),
                "Larder; fwd=vary-miss; fwd-status=200; stored; collapsed"
            ),
            (
                CacheStatus(forward: .request, forwardStatus: 200, key: "ab12"),
                "Larder; fwd=request; fwd-status=200; key=\"ab12\""
            ),
            (CacheStatus(forward: .miss, detail: "a\"b\\c\u{7}é"), "Larder; fwd=miss; detail=\"a\\\"b\\\\c??\""),
            (CacheStatus(cacheName: "my cache", hit: true), "\"my cache\"; hit"),
            (CacheStatus(cacheName: "cdn:edge/1*", hit: true), "cdn:edge/1*; hit"),
            (CacheStatus(cacheName: "*", hit: true), "*; hit"),
            (CacheStatus(cacheName: "1st", hit: true), "\"1st\"; hit"),
            (CacheStatus(cacheName: "a;b", hit: true), "\"a;b\"; hit"),
            (CacheStatus(cacheName: "a{b}", hit: true), "\"a{b}\"; hit"),
            (CacheStatus(cacheName: "", hit: true), "\"\"; hit"),
            (CacheStatus(forward: .method), "Larder; fwd=method"),
            (CacheStatus(forward: .partial), "Larder; fwd=partial"),
        ] as [(CacheStatus, String)])
    func fieldValueIsAStructuredFieldsMember(status: CacheStatus, expected: String) {
        #expect(status.fieldValue == expected)
    }

    @Test func xCacheWordsAreTheContract() {
        #expect(XCache.allCases.map(\.rawValue) == ["HIT", "MISS", "STALE", "REVALIDATED", "BYPASS"])
    }
}

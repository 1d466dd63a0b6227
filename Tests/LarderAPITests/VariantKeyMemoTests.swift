import CacheCore
import CachePolicy
import HTTPCore
import Testing

@testable import LarderAPI

/// `VariantKeyMemo` answers what `CacheKey.variant` computes, for every spelling of the varying field.
@Suite struct VariantKeyMemoTests {
    static let url = "https://e.example/text"
    static let primary = CacheKey.make(canonicalURL: url)

    private func headers(_ fields: [(String, String)]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return headers
    }

    @Test func itAnswersTheVariantKeyFromMemoryAndForEachVariant() {
        let memo = VariantKeyMemo()
        let requests = [
            headers([("Accept-Encoding", "gzip")]), headers([("Accept-Encoding", "br, gzip, deflate")]),
            headers([]), headers([("Accept-Encoding", "identity")]), headers([("accept-encoding", "GZIP")]),
        ]
        for names in [["accept-encoding"], ["accept-encoding", "accept-language"]] {
            for request in requests {
                let expected = CacheKey.variant(canonicalURL: Self.url, varyNames: names, requestHeaders: request)
                for _ in 0..<3 {  // computed, computed and kept (`MemoDoorkeeper`), then from memory
                    #expect(
                        memo.key(primaryKey: Self.primary, url: Self.url, names: names, requestHeaders: request)
                            == expected)
                }
            }
        }
        // One input held per distinct variant (the spellings of one variant share it): the keys came from
        // memory, not from a hash each time.
        let variants = [["accept-encoding"], ["accept-encoding", "accept-language"]].map { names in
            Set(requests.map { Vary.keyPairs(names: names, requestHeaders: $0) }).count
        }
        #expect(memo.count == variants.reduce(0, +))
        #expect(memo.count < 2 * requests.count)
        // gzip and identity callers are two variants, whatever the spelling of the field.
        let gzip = memo.key(
            primaryKey: Self.primary, url: Self.url, names: ["accept-encoding"], requestHeaders: requests[0])
        let identity = memo.key(
            primaryKey: Self.primary, url: Self.url, names: ["accept-encoding"], requestHeaders: requests[2])
        #expect(gzip != identity)
    }

    @Test func itStartsOverWhenFull() {
        let memo = VariantKeyMemo(capacity: 3)
        for index in 0..<7 {
            let url = "https://e.example/\(index)"
            for _ in 0..<2 {  // kept at the second
                let key = memo.key(
                    primaryKey: CacheKey.make(canonicalURL: url), url: url, names: ["accept-encoding"],
                    requestHeaders: headers([("Accept-Encoding", "gzip")]))
                #expect(
                    key
                        == CacheKey.variant(
                            canonicalURL: url, varyNames: ["accept-encoding"],
                            requestHeaders: headers([("Accept-Encoding", "gzip")])))
            }
            #expect(memo.count == index % 3 + 1)
        }
        #expect(VariantKeyMemo(capacity: 0).count == 0)
    }
}

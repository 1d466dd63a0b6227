import CacheCore
import HTTPCore
import Testing

@Suite struct CacheKeyTests {
    @Test func primaryKeyIsSHA256OfTheURL() {
        #expect(
            CacheKey.make(canonicalURL: "https://example.com/").hex
                == "0f115db062b7c0dd030b16878c99dea5c354b49dc37b38eb8846179c7783e9d7")
    }

    @Test func secondaryKeyHashesTheDocumentedLayout() {
        // URL, then per header sorted by lower-cased name: NUL name NUL ('=' value | '!').
        let key = CacheKey.make(
            canonicalURL: "https://example.com/",
            varyingHeaders: [(name: "User-Agent", value: nil), (name: "Accept-Encoding", value: "  gzip\t")])
        #expect(key.hex == "7907128fed08c1fe61a525dc3ea6b86311d64284572ea49ef97a6099c6d2768c")
    }

    @Test func namesAlreadyLowerCasedAndInOrderHashTheSameLayout() {
        // The usual case, hashed without normalizing a copy: the same bytes, the same key as above.
        let key = CacheKey.make(
            canonicalURL: "https://example.com/",
            varyingHeaders: [(name: "accept-encoding", value: "  gzip\t"), (name: "user-agent", value: nil)])
        #expect(key.hex == "7907128fed08c1fe61a525dc3ea6b86311d64284572ea49ef97a6099c6d2768c")
    }

    @Test func aNameGivenTwiceKeepsItsFirstValue() {
        let twice = CacheKey.make(canonicalURL: "u", varyingHeaders: [("accept", "x"), ("accept", "y")])
        #expect(twice == CacheKey.make(canonicalURL: "u", varyingHeaders: [("accept", "x")]))
        #expect(twice != CacheKey.make(canonicalURL: "u", varyingHeaders: [("accept", "y")]))
    }

    @Test func headerOrderAndNameCaseDoNotChangeTheKey() {
        let a = CacheKey.make(canonicalURL: "u", varyingHeaders: [("Accept", "x"), ("Cookie", "y")])
        let b = CacheKey.make(canonicalURL: "u", varyingHeaders: [("cookie", "y"), ("ACCEPT", "x")])
        #expect(a == b)
    }

    @Test func absentAndEmptyHeaderGiveDifferentKeys() {
        let absent = CacheKey.make(canonicalURL: "u", varyingHeaders: [("Accept", nil)])
        let empty = CacheKey.make(canonicalURL: "u", varyingHeaders: [("Accept", "")])
        #expect(absent != empty)
        #expect(absent != CacheKey.make(canonicalURL: "u"))
    }

    @Test func differentValuesGiveDifferentKeys() {
        #expect(
            CacheKey.make(canonicalURL: "u", varyingHeaders: [("Accept", "a")])
                != CacheKey.make(canonicalURL: "u", varyingHeaders: [("Accept", "b")]))
    }

    @Test func requestHeadersAreReadForTheVaryNames() {
        let headers = HTTPHeaders([("accept-encoding", "gzip"), ("Accept-Encoding", "br"), ("X-Other", "1")])
        let key = CacheKey.make(canonicalURL: "u", varyNames: ["Accept-Encoding", "Accept"], requestHeaders: headers)
        #expect(
            key == CacheKey.make(canonicalURL: "u", varyingHeaders: [("accept-encoding", "gzip, br"), ("accept", nil)]))
    }

    @Test(arguments: [
        ("0f115db062b7c0dd030b16878c99dea5c354b49dc37b38eb8846179c7783e9d7", true),
        ("0F115DB062B7C0DD030B16878C99DEA5C354B49DC37B38EB8846179C7783E9D7", true),
        ("0f115db062b7c0dd030b16878c99dea5c354b49dc37b38eb8846179c7783e9d", false),
        ("0f115db062b7c0dd030b16878c99dea5c354b49dc37b38eb8846179c7783e9d7a", false),
        ("0g115db062b7c0dd030b16878c99dea5c354b49dc37b38eb8846179c7783e9d7", false),
        ("", false),
        ("../../../../etc/passwd/../../../../../../../../../../../../../../", false),
    ])
    func hexIsValidated(text: String, valid: Bool) {
        let key = CacheKey(hex: text)
        #expect((key != nil) == valid)
        if let key { #expect(key.hex == text.lowercased()) }
    }

    @Test func rawBytesRoundTrip() {
        let key = CacheKey.make(canonicalURL: "https://example.com/")
        #expect(key.bytes.count == 32)
        #expect(CacheKey(bytes: key.bytes) == key)
        #expect(CacheKey(bytes: Array(key.bytes.dropLast())) == nil)
    }

    /// Listings page by key: keys must sort as their hex forms do, and keys that differ in any one
    /// byte (first or last word) must be different keys.
    @Test func keysSortAsTheirHexFormsAndDifferInEveryByte() {
        let keys = (0..<300).map { CacheKey.make(canonicalURL: "https://example.com/\($0)") }
        #expect(keys.sorted().map(\.hex) == keys.map(\.hex).sorted())
        let base = keys[0].bytes
        var variants = Set([keys[0]])
        for index in 0..<32 {
            var bytes = base
            bytes[index] ^= 0x01
            let variant = CacheKey(bytes: bytes)!
            #expect(variant != keys[0])
            #expect(CacheKey(hex: variant.hex) == variant)
            variants.insert(variant)
        }
        #expect(variants.count == 33)
    }
}

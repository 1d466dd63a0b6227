import CacheCore
import CachePolicy
import Testing

@testable import LarderAPI

/// The memo answers exactly what the canonicalizer answers (and the primary key of its string), keeps no
/// rejection, keeps a text at its second request (`MemoDoorkeeper`) and never holds more than its capacity.
@Suite struct CanonicalURLMemoTests {
    @Test(arguments: [
        "HTTP://Example.COM:80/a/../b?x=%7e", "https://example.com/", "http://127.0.0.1:8080/f.bin",
        "ftp://example.com/", "http://exa mple.com/", "",
    ])
    func memoAnswersLikeTheCanonicalizerEachTime(text: String) {
        let memo = CanonicalURLMemo(capacity: 8)
        let direct = URLCanonicalizer().canonicalize(text)
        for round in 0..<3 {  // computed, computed and kept, from memory
            #expect(memo.count == ((try? direct.get()) == nil || round < 2 ? 0 : 1))
            switch (memo.canonicalize(text), direct) {
            case (.success(let entry), .success(let url)):
                #expect(entry.url == url)
                #expect(entry.string == url.string)
                #expect(entry.primaryKey == CacheKey.make(canonicalURL: url.string))
            case (.failure(let a), .failure(let b)):
                #expect(a.description == b.description)
            default:
                Issue.record("memo and canonicalizer disagree on \(text)")
            }
        }
        #expect(memo.count == ((try? direct.get()) == nil ? 0 : 1))
    }

    @Test(arguments: [0, 1, 16])
    func memoNeverHoldsMoreThanItsCapacity(capacity: Int) {
        let memo = CanonicalURLMemo(capacity: capacity)
        for index in 0..<100 {
            for _ in 0..<2 { _ = memo.canonicalize("http://example.com/\(index)") }
            #expect(memo.count <= capacity)
        }
        if capacity > 1 { #expect(memo.count > 0) }
    }

    /// URLs asked once each, far more than the memo holds, leave the one it keeps in place.
    @Test func urlsAskedOnceDoNotDisplaceAKeptOne() {
        let memo = CanonicalURLMemo(capacity: 64)
        for _ in 0..<2 { _ = memo.canonicalize("http://example.com/kept") }
        #expect(memo.count == 1)
        for index in 0..<10_000 { _ = memo.canonicalize("http://example.com/once/\(index)") }
        #expect(memo.count < 16)
    }
}

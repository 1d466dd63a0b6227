import CacheCore
import CachePolicy
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

/// The hot tier's bookkeeping: the byte budget holds whatever is inserted, the largest body is
/// respected, both forms of a URL go together, and the prepared head is rebuilt only when it must be.
@Suite struct HotEntryCacheTests {
    static func entry(
        _ index: Int, bytes: Int = 1000, gzip: Bool = false, varyNames: [String] = [], variantKey: String? = nil
    ) -> HotEntry {
        let url = "https://example.com/\(index)"
        let stored = CacheCoreFixtures.makeEntry(
            url: url, varyNames: varyNames,
            key: variantKey.map { CacheKey.make(canonicalURL: url, varyingHeaders: [("accept-encoding", $0)]) })
        return HotEntry(
            stored: stored, facts: stored.facts(targets: .standard), body: Array(repeating: 7, count: bytes),
            headers: stored.headers, variant: gzip ? .gzip : .identity)
    }

    @Test(arguments: [0, 1_500, 20_000, 100_000])
    func budgetIsNeverExceeded(budget: Int) {
        let cache = HotEntryCache(budgetBytes: budget, maxEntryBytes: 10_000)
        for index in 0..<200 {
            cache.insert(Self.entry(index))
            #expect(cache.usage.bytes <= budget)
        }
        let cost = Self.entry(0).cost
        #expect(cache.usage.entries == budget / cost)
        #expect(cache.usage.bytes == cache.usage.entries * cost)
    }

    @Test func theOldestInsertionGoesFirst() {
        let cost = Self.entry(0).cost
        let cache = HotEntryCache(budgetBytes: 3 * cost, maxEntryBytes: 10_000)
        for index in 0..<5 { cache.insert(Self.entry(index)) }
        #expect(cache.entry(forURL: "https://example.com/1", gzip: false) == nil)
        for index in 2..<5 { #expect(cache.entry(forURL: "https://example.com/\(index)", gzip: false) != nil) }
    }

    @Test func reinsertingOneURLKeepsOneEntryAndItsCost() {
        let cache = HotEntryCache(budgetBytes: 1 << 20, maxEntryBytes: 10_000)
        for _ in 0..<1_000 { cache.insert(Self.entry(1)) }
        #expect(cache.usage.entries == 1)
        #expect(cache.usage.bytes == Self.entry(1).cost)
    }

    @Test(arguments: [(10_001, false), (10_000, true)])
    func bodiesOverTheLargestAreNotKept(bytes: Int, kept: Bool) {
        let cache = HotEntryCache(budgetBytes: 1 << 20, maxEntryBytes: 10_000)
        cache.insert(Self.entry(1, bytes: bytes))
        #expect((cache.entry(forURL: "https://example.com/1", gzip: false) != nil) == kept)
    }

    /// The store-hit path asks `admits` before it makes a `HotEntry` (which may fill an in-memory file):
    /// with room in the tier it must answer what `insert` then does, and no for every body when the tier is
    /// off.
    @Test(
        arguments: [0, 1 << 20],
        [(1_000, []), (10_000, ["accept-encoding"]), (10_001, []), (1_000, ["accept-language"])] as [(Int, [String])])
    func admitsAnswersWhatInsertDoesWhileThereIsRoom(budget: Int, body: (bytes: Int, names: [String])) {
        let (bytes, names) = body
        let cache = HotEntryCache(budgetBytes: budget, maxEntryBytes: 10_000)
        let entry = Self.entry(1, bytes: bytes, varyNames: names, variantKey: names.isEmpty ? nil : "identity")
        let asked = cache.admits(entry.stored.key, bodyBytes: bytes, varyingOn: names)
        #expect(asked == cache.fits(bodyBytes: bytes, varyingOn: names))
        cache.insert(entry)
        #expect(asked == (cache.usage.entries == 1))
        if budget == 0 { #expect(!asked) }
    }

    /// Once the tier is full, a body read from the store takes the oldest entry's place only when it was
    /// asked for more often lately than that entry: reads offered to the tier and hits answered by it both
    /// count.
    @Test func aFullTierAdmitsANewcomerOnlyWhenItIsAskedForMoreThanTheVictim() {
        let cost = Self.entry(0).cost
        let cache = HotEntryCache(budgetBytes: 3 * cost, maxEntryBytes: 10_000)
        func offer(_ index: Int) -> Bool {
            let entry = Self.entry(index)
            guard cache.admits(entry.stored.key, bodyBytes: entry.bodyCount, varyingOn: []) else { return false }
            cache.insert(entry)
            return true
        }
        // Room for three: each is kept on its first read.
        #expect((0..<3).map(offer) == [true, true, true])
        // Each is hit twice (three requests with its read), so each is marked: the hand passes all three
        // once and comes back to entry 0. A newcomer read once is not worth it, nor read twice, nor three
        // times (a tie keeps what is there).
        for index in 0..<3 {
            for _ in 0..<2 { #expect(cache.entry(forURL: "https://example.com/\(index)", gzip: false) != nil) }
        }
        for _ in 0..<3 { #expect(!offer(3)) }
        #expect(cache.usage.entries == 3)
        // Its fourth read outnumbers entry 0's three: it takes 0's place, and 1 and 2 stay.
        #expect(offer(3))
        #expect(cache.entry(forURL: "https://example.com/0", gzip: false) == nil)
        for index in 1...3 { #expect(cache.entry(forURL: "https://example.com/\(index)", gzip: false) != nil) }
    }

    /// CLOCK: an entry hit since it was inserted survives the next eviction once; the oldest entry nobody hit
    /// goes in its place. Without the mark, 0 and 1 would go.
    @Test func anEntryHitSinceItsInsertionGetsASecondChance() {
        let cost = Self.entry(0).cost
        let cache = HotEntryCache(budgetBytes: 3 * cost, maxEntryBytes: 10_000)
        for index in 0..<3 { cache.insert(Self.entry(index)) }
        #expect(cache.entry(forURL: "https://example.com/0", gzip: false) != nil)
        cache.insert(Self.entry(3))
        cache.insert(Self.entry(4))
        let kept = (0..<5).filter { cache.entry(forURL: "https://example.com/\($0)", gzip: false) != nil }
        #expect(kept == [0, 3, 4])
        // The second chance is spent: 0 is the oldest unmarked entry again once the hand comes round, and the
        // reads above marked every survivor, so the next insertion passes them all once and takes 0.
        cache.insert(Self.entry(5))
        #expect(cache.entry(forURL: "https://example.com/0", gzip: false) == nil)
        for index in 3...5 { #expect(cache.entry(forURL: "https://example.com/\(index)", gzip: false) != nil) }
    }

    /// A search for a victim passes a bounded number of marked entries (it runs under the lookups' lock):
    /// with every entry of a full tier marked, the entry after the last one it may pass goes, marked or not.
    @Test func aVictimSearchPassesABoundedNumberOfMarkedEntries() {
        let cost = Self.entry(0).cost
        let room = 3 * HotEntryCache.secondChancesPerSearch
        let cache = HotEntryCache(budgetBytes: room * cost, maxEntryBytes: 10_000)
        for index in 0..<room { cache.insert(Self.entry(index)) }
        for index in 0..<room { #expect(cache.entry(forURL: "https://example.com/\(index)", gzip: false) != nil) }
        cache.insert(Self.entry(room))
        let gone = (0...room).filter { cache.entry(forURL: "https://example.com/\($0)", gzip: false) == nil }
        #expect(gone == [HotEntryCache.secondChancesPerSearch])
    }

    /// Reads spread evenly over four times what the tier holds: keeping every read evicted an entry per
    /// read for nothing; with admission by frequency the tier changes rarely and answers as often.
    @Test func evenlySpreadReadsOverALargerWorkingSetRarelyChangeTheTier() {
        let cost = Self.entry(0).cost
        let keys = 400
        let cache = HotEntryCache(budgetBytes: keys / 4 * cost, maxEntryBytes: 10_000)
        let entries = (0..<keys).map { Self.entry($0) }
        var generator = SplitMix64(seed: 7)
        var admitted = 0
        var answered = 0
        let reads = 40_000
        for read in 0..<reads {
            let entry = entries[Int(generator.next() % UInt64(keys))]
            if cache.entry(forURL: entry.stored.url, gzip: false) != nil {
                if read >= reads / 2 { answered += 1 }
            } else if cache.admits(entry.stored.key, bodyBytes: entry.bodyCount, varyingOn: []) {
                cache.insert(entry)
                if read >= reads / 2 { admitted += 1 }
            }
        }
        // Keeping every read: about 3 admissions in 4 reads, and a quarter answered.
        #expect(admitted < reads / 2 / 20)
        #expect(answered > reads / 2 / 5)
        #expect(cache.usage.entries == keys / 4)
    }

    @Test(arguments: [["accept-language"], ["accept-encoding", "user-agent"], ["user-agent", "accept-encoding"]])
    func entriesVaryingOnMoreThanAcceptEncodingAreNotKept(names: [String]) {
        let cache = HotEntryCache(budgetBytes: 1 << 20, maxEntryBytes: 10_000)
        cache.insert(Self.entry(1, varyNames: names))
        #expect(cache.usage.entries == 0)
    }

    @Test func theTwoVariantsOfAcceptEncodingAreKeptSideBySide() {
        let cache = HotEntryCache(budgetBytes: 1 << 20, maxEntryBytes: 10_000)
        let identity = Self.entry(1, bytes: 900, varyNames: ["accept-encoding"], variantKey: "identity")
        let gzip = Self.entry(1, bytes: 300, gzip: true, varyNames: ["accept-encoding"], variantKey: "gzip")
        cache.insert(identity)
        cache.insert(gzip)
        #expect(cache.usage.entries == 2)
        #expect(cache.entry(forURL: "https://example.com/1", gzip: true) === gzip)
        #expect(cache.entry(forURL: "https://example.com/1", gzip: false) === identity)
        // Either variant's key drops the URL's two.
        cache.remove(gzip.stored.key)
        #expect(cache.usage.entries == 0)
        #expect(cache.usage.bytes == 0)
    }

    @Test func aGzipCallerIsNotGivenTheIdentityVariant() {
        let cache = HotEntryCache(budgetBytes: 1 << 20, maxEntryBytes: 10_000)
        cache.insert(Self.entry(1, varyNames: ["accept-encoding"], variantKey: "identity"))
        #expect(cache.entry(forURL: "https://example.com/1", gzip: true) == nil)
        // An entry that does not vary answers gzip callers in its identity form.
        cache.insert(Self.entry(2))
        #expect(cache.entry(forURL: "https://example.com/2", gzip: true)?.variant == .identity)
    }

    @Test func aResponseThatStopsVaryingReplacesBothVariants() {
        let cache = HotEntryCache(budgetBytes: 1 << 20, maxEntryBytes: 10_000)
        cache.insert(Self.entry(1, varyNames: ["accept-encoding"], variantKey: "identity"))
        cache.insert(Self.entry(1, gzip: true, varyNames: ["accept-encoding"], variantKey: "gzip"))
        let plain = Self.entry(1)
        cache.insert(plain)
        #expect(cache.usage.entries == 1)
        #expect(cache.usage.bytes == plain.cost)
        #expect(cache.entry(forURL: "https://example.com/1", gzip: true) === plain)
    }

    @Test func bothFormsAreKeptAndRemovedTogether() {
        let cache = HotEntryCache(budgetBytes: 1 << 20, maxEntryBytes: 10_000)
        cache.insert(Self.entry(1, bytes: 900))
        cache.insert(Self.entry(1, bytes: 300, gzip: true))
        #expect(cache.entry(forURL: "https://example.com/1", gzip: true)?.variant == .gzip)
        #expect(cache.entry(forURL: "https://example.com/1", gzip: false)?.variant == .identity)
        #expect(cache.usage.entries == 2)
        cache.remove(CacheKey.make(canonicalURL: "https://example.com/1"))
        #expect(cache.usage.entries == 0)
        #expect(cache.usage.bytes == 0)
    }

    @Test func removeByURLAndByPredicateForgetTheBytes() {
        let cache = HotEntryCache(budgetBytes: 1 << 20, maxEntryBytes: 10_000)
        for index in 0..<10 { cache.insert(Self.entry(index)) }
        cache.remove(url: "https://example.com/3")
        cache.remove { $0.url.hasSuffix("/7") }
        #expect(cache.usage.entries == 8)
        #expect(cache.usage.bytes == 8 * Self.entry(0).cost)
        #expect(cache.entry(forURL: "https://example.com/3", gzip: false) == nil)
    }

    @Test func preparedHeadIsRebuiltOnlyWhenAgeOrTTLChange() {
        let hot = Self.entry(1)
        let builds = Mutex(0)
        func head(age: Int64, ttl: Int64) -> String {
            String(
                decoding: hot.preparedHead(age: age, ttl: ttl) { age, ttl in
                    builds.withLock { $0 += 1 }
                    return Array("age=\(age) ttl=\(ttl)".utf8)
                }, as: UTF8.self)
        }
        #expect(head(age: 3, ttl: 57) == "age=3 ttl=57")
        #expect(head(age: 3, ttl: 57) == "age=3 ttl=57")
        #expect(head(age: 4, ttl: 56) == "age=4 ttl=56")
        // A second boundary of the Date clock may fall between two calls: at most one build more.
        #expect((2...3).contains(builds.withLock { $0 }))
    }
}

import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

/// `StoredFactsMemo` answers an entry's facts from memory only while every input of them is the entry's.
@Suite struct StoredFactsMemoTests {
    static let url = "https://e.example/facts"

    private func entry(cacheControl: String = "max-age=60") -> StoredEntry {
        CacheCoreFixtures.makeEntry(url: Self.url, extraHeaders: [("Cache-Control", cacheControl)])
    }

    /// What the rules read, compared with the facts computed afresh.
    private func expectFresh(_ facts: ResponseFacts, _ entry: StoredEntry) {
        let fresh = entry.facts(targets: .standard)
        #expect(facts.headers == fresh.headers)
        #expect(facts.status == fresh.status)
        #expect(facts.requestTime == fresh.requestTime)
        #expect(facts.responseTime == fresh.responseTime)
        #expect(facts.staleSince == fresh.staleSince)
        #expect(facts.freshnessLifetime().seconds == fresh.freshnessLifetime().seconds)
    }

    /// Kept at the second computation (`MemoDoorkeeper`), answered from memory from the third on.
    @Test func theSameEntryIsAnsweredFromMemory() {
        let memo = StoredFactsMemo(targets: .standard)
        let entry = entry()
        for _ in 0..<2 { expectFresh(memo.facts(of: entry), entry) }
        #expect(memo.answeredFromMemory.load(ordering: .relaxed) == 0)
        expectFresh(memo.facts(of: entry), entry)
        #expect(memo.answeredFromMemory.load(ordering: .relaxed) == 1)
        #expect(memo.facts(of: entry).freshnessLifetime().seconds == 60)
    }

    /// Each input of the facts changed alone (as a revalidation or a soft purge changes the row) gets the
    /// facts of the entry as it is now.
    @Test func anyChangedInputIsComputedAgain() {
        let memo = StoredFactsMemo(targets: .standard)
        let base = entry()
        for _ in 0..<3 { _ = memo.facts(of: base) }
        #expect(memo.answeredFromMemory.load(ordering: .relaxed) == 1)
        var changes: [StoredEntry] = []
        changes.append(entry(cacheControl: "max-age=5"))
        var later = base
        later.responseTime = base.responseTime.addingTimeInterval(30)
        changes.append(later)
        var sentEarlier = base
        sentEarlier.requestTime = base.requestTime.addingTimeInterval(-10)
        changes.append(sentEarlier)
        var purged = base
        purged.staleSince = base.responseTime.addingTimeInterval(1)
        changes.append(purged)
        var gone = base
        gone.status = HTTPStatus(code: 404)
        changes.append(gone)
        for changed in changes {
            let facts = memo.facts(of: changed)
            expectFresh(facts, changed)
            #expect(memo.answeredFromMemory.load(ordering: .relaxed) == 1)
        }
        #expect(memo.facts(of: entry(cacheControl: "max-age=5")).freshnessLifetime().seconds == 5)
    }

    @Test func keysSharingASlotAreToldApart() {
        let memo = StoredFactsMemo(targets: .standard, slotCount: 1)
        let first = entry(cacheControl: "max-age=60")
        let second = CacheCoreFixtures.makeEntry(
            url: "https://e.example/other", extraHeaders: [("Cache-Control", "max-age=7")])
        // The first is kept (at its second computation); the second, in its slot, is not answered with it.
        for _ in 0..<2 { #expect(memo.facts(of: first).freshnessLifetime().seconds == 60) }
        #expect(memo.facts(of: second).freshnessLifetime().seconds == 7)
        #expect(memo.answeredFromMemory.load(ordering: .relaxed) == 0)
        #expect(memo.facts(of: first).freshnessLifetime().seconds == 60)
        #expect(memo.answeredFromMemory.load(ordering: .relaxed) == 1)
        #expect(StoredFactsMemo(targets: .standard, slotCount: 0).facts(of: first).freshnessLifetime().seconds == 60)
    }
}

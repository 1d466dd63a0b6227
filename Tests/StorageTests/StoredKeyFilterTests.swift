import TestSupport
import Testing

@testable import Storage

/// `StoredKeyFilter`: never "absent" for a key added or scanned, rarely "held" for another, and a build
/// that loses no key added while it scans.
@Suite struct StoredKeyFilterTests {
    /// Reproducible ids spread like a digest's bits.
    private static func ids(_ count: Int, seed: UInt64) -> [UInt64] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in generator.next() }
    }

    private static func falsePositiveShare(_ filter: StoredKeyFilter, seed: UInt64) -> Double {
        let others = ids(100_000, seed: seed)
        return Double(others.filter { filter.mayHold($0) }.count) / Double(others.count)
    }

    @Test func beforeItsFirstBuildEveryKeyMayBeHeld() {
        let filter = StoredKeyFilter()
        #expect(Self.ids(1000, seed: 1).allSatisfy { filter.mayHold($0) })
        // Nothing to add to yet, and no build asked for: the one the store schedules at opening scans.
        #expect(!filter.add(42))
        #expect(filter.figures == nil)
    }

    @Test func everyScannedAndAddedKeyIsHeldAndFewOthersAre() {
        let filter = StoredKeyFilter(minimumCapacity: 1 << 10)
        let scanned = Self.ids(20_000, seed: 2)
        #expect(filter.beginBuild())
        filter.finishBuild(scanned: scanned)
        let figures = filter.figures
        #expect(figures?.capacity == 1 << 16)  // twice the keys, rounded up to a power of two
        #expect(figures?.bytes == 1 << 16)  // a byte a key of capacity
        #expect(scanned.allSatisfy { filter.mayHold($0) })
        // Just after a build (a third of capacity here) about 1 key in 300 never stored passes.
        #expect(Self.falsePositiveShare(filter, seed: 3) < 0.01)

        // Filled to its capacity, still no key lost, and about 1 in 30 others pass.
        let added = Self.ids(1 << 16 - 20_000, seed: 4)
        for id in added { #expect(!filter.add(id)) }
        #expect(added.allSatisfy { filter.mayHold($0) })
        #expect(scanned.allSatisfy { filter.mayHold($0) })
        #expect(Self.falsePositiveShare(filter, seed: 5) < 0.05)
    }

    @Test func keysAddedWhileABuildScansAreInTheNewTable() {
        let filter = StoredKeyFilter(minimumCapacity: 64)
        #expect(filter.beginBuild())
        #expect(!filter.beginBuild())  // one build at a time
        // Committed after the build's snapshot: not in what it scanned.
        let late = Self.ids(10, seed: 6)
        for id in late { #expect(!filter.add(id)) }
        filter.finishBuild(scanned: Self.ids(10, seed: 7))
        #expect(late.allSatisfy { filter.mayHold($0) })
        #expect(filter.figures?.keys == 20)
        #expect(filter.beginBuild())  // the build ended
    }

    @Test func aTablePastItsCapacityAsksForOneBuild() {
        let filter = StoredKeyFilter(minimumCapacity: 64)
        #expect(filter.beginBuild())
        filter.finishBuild(scanned: [])
        let ids = Self.ids(70, seed: 8)
        for id in ids.prefix(64) { #expect(!filter.add(id)) }
        #expect(filter.add(ids[64]))  // the 65th key of 64
        #expect(filter.beginBuild())
        #expect(!filter.add(ids[65]))  // a build runs: not asked again
        filter.finishBuild(scanned: Array(ids.prefix(65)))
        #expect(filter.figures?.capacity == 256)
        #expect(ids.prefix(66).allSatisfy { filter.mayHold($0) })
    }

    @Test func anAbandonedBuildLeavesTheTableItWouldReplace() {
        let filter = StoredKeyFilter(minimumCapacity: 64)
        #expect(filter.beginBuild())
        filter.finishBuild(scanned: [1, 2, 3])
        #expect(filter.beginBuild())
        #expect(!filter.add(4))
        filter.abandonBuild()
        #expect([1, 2, 3, 4].allSatisfy { filter.mayHold($0) })
        #expect(filter.figures?.keys == 4)
        #expect(filter.beginBuild())
    }
}

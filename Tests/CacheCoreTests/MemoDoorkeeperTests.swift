import Testing

@testable import CacheCore

/// `MemoDoorkeeper`: a key is admitted at its second miss while its cell still holds it, never at its first.
@Suite struct MemoDoorkeeperTests {
    @Test func aKeyIsAdmittedAtItsSecondMissNotItsFirst() {
        var doorkeeper = MemoDoorkeeper(cellCount: 64)
        let first = (UInt64(0)..<32).map { doorkeeper.admits($0) }
        let second = (UInt64(0)..<32).map { doorkeeper.admits($0) }
        #expect(first == Array(repeating: false, count: 32))
        #expect(second == Array(repeating: true, count: 32))
        // Admission clears the cell: a key missed again (its memo slot taken since) starts over.
        let again = [doorkeeper.admits(5), doorkeeper.admits(5)]
        #expect(again == [false, true])
    }

    /// Small numbers that differ in a few bits (rowids in tests, the low bits a memo's slot uses) get cells
    /// and fingerprints of their own: none is admitted on another's miss.
    @Test func nearbyKeysAreNotTakenForEachOther() {
        var doorkeeper = MemoDoorkeeper(cellCount: 4096)
        var admitted = 0
        for key in UInt64(0)..<2048 where doorkeeper.admits(key) { admitted += 1 }
        for key in UInt64(1 << 32)..<UInt64(1 << 32) + 2048 where doorkeeper.admits(key) { admitted += 1 }
        #expect(admitted == 0)
    }

    /// A key whose cell was taken by other misses before it came back is not admitted: what a memo sees
    /// when requests spread over far more keys than it holds.
    @Test func aKeyThatReturnsAfterManyOtherMissesIsNotAdmitted() {
        var doorkeeper = MemoDoorkeeper(cellCount: 16)
        let first = doorkeeper.admits(0xdead_beef)
        var admitted = 0
        var key: UInt64 = 0x9e37_79b9
        for _ in 0..<10_000 {
            key = key &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if doorkeeper.admits(key) { admitted += 1 }
        }
        let returned = doorkeeper.admits(0xdead_beef)
        #expect(!first && !returned)
        #expect(admitted == 0)
    }

    @Test func theCellCountIsRoundedUpToAPowerOfTwo() {
        for (asked, made) in [(-3, 1), (0, 1), (1, 1), (3, 4), (1000, 1024), (4096, 4096)] {
            var doorkeeper = MemoDoorkeeper(cellCount: asked)
            #expect(doorkeeper.cellCount == made, "\(asked) cells asked")
            let answers = [doorkeeper.admits(42), doorkeeper.admits(42)]
            #expect(answers == [false, true], "\(asked) cells asked")
        }
    }
}

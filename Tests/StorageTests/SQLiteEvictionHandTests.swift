import Testing

@testable import Storage

/// The eviction hand's rules as a value (`SQLiteEvictionHand`): what a lap spares and what the next lap
/// spares after it.
@Suite struct SQLiteEvictionHandTests {
    private static func hand(sparedIfUsedSince: Double = 100, lapStartedAt: Double = 500) -> SQLiteEvictionHand {
        SQLiteEvictionHand(
            position: 0, lapEnd: 10, sparedIfUsedSince: sparedIfUsedSince, lapStartedAt: lapStartedAt,
            lap: .passedNone, previousLapSparedAll: false)
    }

    private enum Verdict { case taken, spared }

    /// Passes one entry (`#expect` cannot hold a mutating call).
    private static func pass(_ hand: inout SQLiteEvictionHand, _ seq: Int64, _ lastUse: Double?) -> Verdict {
        hand.takes(seq: seq, lastUse: lastUse) ? .taken : .spared
    }

    @Test func anEntryUsedSinceThePreviousLapBeganIsSparedAndOneNeverHitOrUsedBeforeGoes() {
        var hand = Self.hand()
        #expect(Self.pass(&hand, 1, 100) == .spared)
        #expect(Self.pass(&hand, 2, 450) == .spared)
        #expect(hand.lap == .sparedAll)
        #expect(Self.pass(&hand, 3, 99.5) == .taken)
        #expect(Self.pass(&hand, 4, nil) == .taken)
        #expect(hand.position == 4)
        #expect(hand.lap == .took)
    }

    @Test func theNextLapSparesWhatWasUsedSinceThisLapBegan() {
        var hand = Self.hand()
        #expect(Self.pass(&hand, 1, nil) == .taken)
        hand.wrap(at: 900, newest: 12)
        #expect(hand.position == 0)
        #expect(hand.lapEnd == 12)
        #expect(hand.lapStartedAt == 900)
        #expect(hand.lap == .passedNone)
        // Used after the last threshold but before this lap began: spared in the last lap, not in this one.
        #expect(Self.pass(&hand, 2, 450) == .taken)
        #expect(Self.pass(&hand, 3, 500) == .spared)
    }

    @Test func aLapThatSparedEverythingIsFollowedByASecondPassThenByOneThatSparesNothing() {
        var hand = Self.hand()
        #expect(Self.pass(&hand, 1, 600) == .spared)
        hand.wrap(at: 700, newest: 1)
        // The second pass spares what was used since the first began, as a CLOCK's second pass would.
        #expect(hand.sparedIfUsedSince == 500)
        #expect(Self.pass(&hand, 1, 650) == .spared)
        hand.wrap(at: 800, newest: 1)
        // Two laps that spared everything: the third takes in insertion order, whatever the use.
        #expect(hand.sparedIfUsedSince == .infinity)
        #expect(Self.pass(&hand, 1, 790) == .taken)
        hand.wrap(at: 900, newest: 1)
        #expect(hand.sparedIfUsedSince == 800)
    }

    @Test func aLapThatPassedNothingLeavesTheRuleAsItWas() {
        var hand = Self.hand()
        hand.wrap(at: 900, newest: 0)
        #expect(hand.sparedIfUsedSince == 100)
        #expect(hand.lapStartedAt == 900)
        #expect(!hand.previousLapSparedAll)
    }
}

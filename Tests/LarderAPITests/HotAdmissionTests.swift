import Testing

@testable import LarderAPI

/// The memory tier's frequency sketch: counts per key up to its ceiling, halved every window, and keys
/// that share no counter do not disturb each other.
@Suite struct HotAdmissionTests {
    /// Four 16-bit slices, one a row: with a width of 256, `key(n)` and `key(m)` share no counter for n ≠ m.
    static func key(_ n: UInt64) -> UInt64 { n | n << 16 | n << 32 | n << 48 }

    @Test func countsEachKeyUpToTheCeiling() {
        var sketch = HotAdmission(width: 256, window: 1_000_000)
        for _ in 0..<3 { sketch.record(Self.key(1)) }
        for _ in 0..<40 { sketch.record(Self.key(2)) }
        #expect(sketch.frequency(Self.key(1)) == 3)
        #expect(sketch.frequency(Self.key(2)) == HotAdmission.ceiling)
        #expect(sketch.frequency(Self.key(100)) == 0)
        // A counter at the ceiling does not carry into its neighbour (key 3 shares key 2's words).
        #expect(sketch.frequency(Self.key(1) + Self.key(2)) == 0)
    }

    @Test func everyWindowHalvesEveryCount() {
        var sketch = HotAdmission(width: 256, window: 20)
        for _ in 0..<12 { sketch.record(Self.key(5)) }
        for _ in 0..<7 { sketch.record(Self.key(6)) }
        #expect(sketch.frequency(Self.key(5)) == 12)
        // The twentieth request ends the window: 13 -> 6, 7 -> 3.
        sketch.record(Self.key(5))
        #expect(sketch.frequency(Self.key(5)) == 6)
        #expect(sketch.frequency(Self.key(6)) == 3)
    }

    /// A key whose counters other keys share in some rows but not all reads as its own count (the least).
    @Test func theLeastOfTheRowsIsTheEstimate() {
        var sketch = HotAdmission(width: 256, window: 1_000_000)
        let own: UInt64 = 9 | 9 << 16 | 9 << 32 | 9 << 48
        // Shares rows 0 to 2 with `own`, not row 3.
        let crowd: UInt64 = 9 | 9 << 16 | 9 << 32 | 77 << 48
        for _ in 0..<10 { sketch.record(crowd) }
        sketch.record(own)
        #expect(sketch.frequency(own) == 1)
        #expect(sketch.frequency(crowd) == 10)
    }
}

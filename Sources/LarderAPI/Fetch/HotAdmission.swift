/// How often each key was asked for lately, approximately, for the memory tier's admission: a count-min
/// sketch of 4-bit counters (4 rows of `width`), all halved every `window` recorded requests, so that old
/// popularity fades (TinyLFU: Einziger, Friedman and Manes, "TinyLFU: A Highly Efficient Cache Admission
/// Policy", 2017).
///
/// Why: the tier kept every body read from the store, evicting its oldest insertion. With a working set
/// four times the tier and requests spread evenly, three reads in four came from the store, and each made
/// an entry and evicted one for nothing (its turn never came again before it was evicted): 0.88 of the hit
/// rate with the tier off (`Benchmarks/million/tier.sh`). A newcomer now takes the place of the entry the
/// tier would evict (`HotEntryCache.victim`) only when it was asked for more often lately than that entry;
/// when the tier has room, anything is kept.
///
/// Counters are bytes in 64-bit words, so a halving is one shift and mask a word. Keys are SHA-256 digests:
/// the four row indices are four 16-bit slices of the key's first word, with no further hashing.
struct HotAdmission {
    private var words: [UInt64]
    private let mask: Int
    private let rowBytes: Int
    /// Requests recorded since the last halving.
    private var recorded = 0
    /// Requests between two halvings.
    let window: Int

    /// The highest count a counter holds.
    static let ceiling: UInt8 = 15

    /// - Parameters:
    ///   - width: counters a row (rounded up to a power of two, at most 65 536: an index is 16 bits of the key).
    ///   - window: requests between two halvings; by default five times the width.
    init(width: Int = 1 << 15, window: Int? = nil) {
        var rounded = 8
        while rounded < min(max(width, 8), 1 << 16) { rounded <<= 1 }
        mask = rounded - 1
        rowBytes = rounded
        words = [UInt64](repeating: 0, count: 4 * rounded / 8)
        self.window = max(1, window ?? 5 * rounded)
    }

    /// The byte index of `hash`'s counter in `row`.
    private func index(_ hash: UInt64, row: Int) -> Int {
        row * rowBytes + Int(truncatingIfNeeded: hash >> UInt64(16 * row)) & mask
    }

    private func counter(at index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: words[index >> 3] >> UInt64((index & 7) * 8))
    }

    /// Counts one request for the key whose first word is `hash`.
    mutating func record(_ hash: UInt64) {
        for row in 0..<4 {
            let index = index(hash, row: row)
            if counter(at: index) < Self.ceiling { words[index >> 3] &+= 1 << UInt64((index & 7) * 8) }
        }
        recorded += 1
        if recorded >= window { halve() }
    }

    /// How often the key whose first word is `hash` was asked for lately (at least that; collisions only add).
    func frequency(_ hash: UInt64) -> UInt8 {
        var least = Self.ceiling
        for row in 0..<4 { least = min(least, counter(at: index(hash, row: row))) }
        return least
    }

    /// Halves every counter: each byte shifted right, the bit each takes from its neighbour masked off.
    private mutating func halve() {
        recorded = 0
        for word in words.indices { words[word] = (words[word] >> 1) & 0x7F7F_7F7F_7F7F_7F7F }
    }
}

/// Decides which keys a memo keeps: a key is admitted at its second miss within a short while, never at
/// its first.
///
/// The memos of the request path (canonical URLs, variant keys, `Vary` names, decoded entries, freshness
/// facts, prepared heads) hold a few thousand keys each, which is every key of a hot working set. When
/// the requests spread over far more keys than that (a million-entry store read at random), nearly every
/// lookup misses, and a memo that kept every miss replaced one of its keys with each request: an
/// allocation for the newcomer and the release of a cold one, in six memos per hit. At a million entries
/// that churn cost about a sixth of a hit's CPU time, more than the memos saved (`Benchmarks/million`,
/// docs/ARCHITECTURE.md "Memos admit a key at its second miss").
///
/// A doorkeeper is a direct-mapped table of 32-bit fingerprints. A miss writes its key's fingerprint
/// into the key's cell, unless the cell holds it already: then the key was missed a moment ago and is
/// admitted (and the cell cleared). Once admitted, a key is answered by the memo and never comes back
/// here; so in a working set that fits the memo every key is admitted at its second request, while keys
/// that return only after thousands of other misses have lost their cell by then and are not kept, and
/// the memo keeps what it holds.
public struct MemoDoorkeeper: Sendable {
    private var cells: [UInt32]

    /// Creates a doorkeeper with no key seen.
    /// - Parameter cellCount: cells, rounded up to a power of two (at least 1); the memo's capacity is a
    ///   good size: the keys that can wait their second miss without losing their cell.
    public init(cellCount: Int) {
        cells = Array(repeating: 0, count: powerOfTwo(atLeast: cellCount))
    }

    /// The cells (a power of two).
    public var cellCount: Int { cells.count }

    /// Whether the memo may keep the key with this hash: `true` when its last miss was recent enough to
    /// still hold its cell. Each call is a miss: the first call for a key records it and answers `false`.
    /// - Parameter hash: 64 bits of the key (a SHA-256 word, a rowid taken from one). They are mixed
    ///   here, so that keys that differ only in a few bits (small numbers) still get cells of their own.
    public mutating func admits(_ hash: UInt64) -> Bool {
        // Fibonacci hashing: the high half of the product picks the cell, the low half (a bijection of the
        // hash's low half) is the fingerprint, never 0, the empty cell.
        let mixed = hash &* 0x9E37_79B9_7F4A_7C15
        let index = Int(truncatingIfNeeded: mixed >> 32) & (cells.count - 1)
        let low = UInt32(truncatingIfNeeded: mixed)
        let fingerprint = low == 0 ? 1 : low
        if cells[index] == fingerprint {
            cells[index] = 0
            return true
        }
        cells[index] = fingerprint
        return false
    }
}

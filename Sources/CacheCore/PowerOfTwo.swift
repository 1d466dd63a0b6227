/// The smallest power of two ≥ `n`, and 1 for any `n` ≤ 1: the size of a table indexed by the low bits of a
/// hash (the key filter, the memos' slots, their doorkeepers).
public func powerOfTwo(atLeast n: Int) -> Int {
    n <= 1 ? 1 : 1 << (Int.bitWidth - (n - 1).leadingZeroBitCount)
}

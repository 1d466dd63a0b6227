import CZlib

/// A caller's input handed to zlib in slices its 32-bit `avail_in` can hold (one slice below 4 GiB).
struct InputSlices {
    private let input: UnsafeRawBufferPointer
    private var offset = 0

    init(_ input: UnsafeRawBufferPointer) { self.input = input }

    /// Bytes not handed out yet.
    var remaining: Int { input.count - offset }

    /// The next slice, or `nil` when all were handed out.
    mutating func next() -> (start: UnsafeMutablePointer<Bytef>, count: uInt)? {
        guard offset < input.count, let base = input.baseAddress else { return nil }
        let count = min(input.count - offset, Int(uInt.max))
        defer { offset += count }
        return (UnsafeMutablePointer(mutating: (base + offset).assumingMemoryBound(to: Bytef.self)), uInt(count))
    }
}

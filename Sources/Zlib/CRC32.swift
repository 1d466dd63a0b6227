import CCRC32Fold
import CZlib

/// CRC-32 as gzip, PNG and zlib define it (ISO-HDLC, reflected polynomial 0xEDB88320; RFC 1952 §8,
/// [PNG §5.5](https://www.w3.org/TR/png-3/#5CRC-algorithm)).
///
/// Runs of 64 bytes or more are folded with carry-less multiplication (`CCRC32Fold`, PCLMULQDQ) where
/// the CPU has it, and runs of 512 bytes or more four 512-bit lanes at a time where it has AVX-512 with
/// VPCLMULQDQ: about 0.2 instructions a byte (narrow) against 7.7 for zlib's `crc32_z`
/// ([manual: Checksum functions](https://zlib.net/manual.html#Checksum)), which checks the rest (the
/// last 0 to 15 bytes, short inputs, CPUs without the instruction).
public struct CRC32: Sendable, Hashable {
    /// The checksum of the bytes fed so far (0 for none).
    public private(set) var value: UInt32

    /// Starts a checksum.
    /// - Parameter value: the checksum of bytes already seen, to continue it; 0 to start afresh.
    public init(continuing value: UInt32 = 0) { self.value = value }

    /// Whether this CPU folds (decided once per process).
    static let folds = crc32_fold_available() == 1

    /// Whether this CPU folds 512-bit lanes (AVX-512 with VPCLMULQDQ), for runs of `wideRun` bytes or more.
    static let foldsWide = crc32_fold_wide_available() == 1

    /// The shortest run folded 512 bits at a time: the wide loop starts with 256 bytes in flight, and below
    /// two of its steps the narrow one does as well.
    static let wideRun = 512

    /// Feeds more bytes.
    /// - Parameter bytes: the next bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) { update(bytes, copy: nil) }

    /// Feeds bytes and copies them to `destination` in the same pass: where the CPU folds, each byte is
    /// read once for both (a read from the store that checks and keeps its bytes).
    /// - Parameters:
    ///   - bytes: the next bytes.
    ///   - destination: where to copy them: `bytes.count` bytes, not overlapping `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer, copyingTo destination: UnsafeMutableRawPointer) {
        update(bytes, copy: destination)
    }

    /// Folds the whole 16-byte lanes of a run of 64 bytes or more (copying them when `copy` is given), then
    /// zlib takes the rest (copied first).
    private mutating func update(_ bytes: UnsafeRawBufferPointer, copy: UnsafeMutableRawPointer?) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var folded = 0
        if bytes.count >= 64 && Self.folds {
            folded = bytes.count & ~15
            let copy = copy?.assumingMemoryBound(to: UInt8.self)
            value =
                folded >= Self.wideRun && Self.foldsWide
                ? ~crc32_fold_blocks_wide(~value, copy, base, folded)
                : ~crc32_fold_blocks(~value, copy, base, folded)
        }
        guard folded < bytes.count else { return }
        if let copy { (copy + folded).copyMemory(from: base + folded, byteCount: bytes.count - folded) }
        value = UInt32(truncatingIfNeeded: crc32_z(uLong(value), base + folded, bytes.count - folded))
    }

    /// Feeds bytes whose own checksum is already known, without reading them (zlib's `crc32_combine`):
    /// the checksum of a body from its chunks' checksums.
    /// - Parameters:
    ///   - checksum: the CRC-32 of the next bytes on their own.
    ///   - length: how many bytes that was.
    public mutating func append(checksum: UInt32, length: Int) {
        // The combination is the checksum so far moved past `length` bytes (multiplied by x^(8 length)
        // modulo the polynomial) plus `checksum`: with nothing so far, `checksum` itself. That is every
        // body's first chunk, and zlib's combination cost about 770 instructions.
        guard value != 0 else {
            value = checksum
            return
        }
        value = UInt32(truncatingIfNeeded: crc32_combine(uLong(value), uLong(checksum), .init(length)))
    }

    /// Feeds more bytes.
    /// - Parameter bytes: the next bytes; copied first when they are not stored contiguously.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        bytes.withContiguousBytes { update($0) }
    }

    /// The checksum by zlib's `crc32_z` alone, without folding: the CRC benchmark's baseline.
    /// - Parameter bytes: the bytes.
    /// - Returns: their CRC-32.
    package static func zlibChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        return UInt32(truncatingIfNeeded: crc32_z(0, base, bytes.count))
    }

    /// The checksum folded with 128-bit lanes only, as on a CPU without AVX-512: the CRC benchmark's baseline
    /// for the wide fold.
    /// - Parameter bytes: the bytes.
    package static func narrowFoldChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        guard bytes.count >= 64 && folds else { return zlibChecksum(bytes) }
        let folded = bytes.count & ~15
        let value = ~crc32_fold_blocks(~0, nil, base, folded)
        return UInt32(truncatingIfNeeded: crc32_z(uLong(value), base + folded, bytes.count - folded))
    }

    /// The checksum of some bytes.
    /// - Parameter bytes: the bytes.
    /// - Returns: their CRC-32.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The checksum of some bytes.
    /// - Parameter bytes: the bytes; copied first when they are not stored contiguously.
    /// - Returns: their CRC-32.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}

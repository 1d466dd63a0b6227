import CZlib

/// A deflate stream: compresses input as it is given, flushing as each call asks
/// ([manual: deflate](https://zlib.net/manual.html#Basic)).
///
/// Owns one `z_stream`, freed in `deinit`. Not thread-safe: one caller at a time (the owner's lock).
public final class Deflater {
    /// How much `deflate` pushes out at the end of a call
    /// ([manual: deflate](https://zlib.net/manual.html#Basic), the `flush` parameter).
    public enum Flush: Sendable {
        /// `Z_NO_FLUSH`: zlib decides how much to emit; the rest waits for more input.
        case none
        /// `Z_SYNC_FLUSH`: all output so far, ending on a byte boundary with an empty stored block.
        case sync
        /// `Z_FULL_FLUSH`: as `sync`, and the dictionary is reset, so inflate can start again here.
        case full
        /// `Z_FINISH`: the stream ends (the final block, and the trailer of a zlib or gzip wrapper).
        case finish

        var argument: Int32 {
            switch self {
            case .none: Z_NO_FLUSH
            case .sync: Z_SYNC_FLUSH
            case .full: Z_FULL_FLUSH
            case .finish: Z_FINISH
            }
        }
    }

    /// Whether a `.finish` call ended the stream; it takes no more input after that.
    public private(set) var isFinished = false

    private let stream: UnsafeMutablePointer<z_stream>

    /// Sets up a deflate stream ([manual: deflateInit2](https://zlib.net/manual.html#Advanced)).
    /// - Parameters:
    ///   - format: raw, zlib or gzip framing.
    ///   - level: 0…9 (0 stores, 1 is fastest, 9 smallest); 6 is zlib's and gzip's default.
    ///   - windowBits: 9…15, the base-2 log of the window; 15 (32 KiB) is zlib's default.
    ///   - memoryLevel: 1…9, the size of the match-finding hash table; 8 is zlib's default.
    /// - Throws: `ZlibError` (`.deflateInit`) when a parameter is out of range or zlib cannot allocate.
    public init(format: DeflateFormat = .raw, level: Int = 6, windowBits: Int = 15, memoryLevel: Int = 8)
        throws(ZlibError)
    {
        // z_stream must not move after init: zlib keeps a pointer back to it, hence the heap allocation.
        // A local until zlib accepted it: a class whose stored properties are all set runs deinit even
        // when its init throws, and deflateEnd on a refused stream would free it twice.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let code = czlib_deflate_init2(
            stream, Int32(clamping: level), format.windowBitsArgument(Int32(clamping: windowBits)),
            Int32(clamping: memoryLevel), Z_DEFAULT_STRATEGY)
        guard code == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ZlibError(operation: .deflateInit, kind: .library, code: .init(rawValue: code))
        }
        self.stream = stream
    }

    /// A deflater for an input whose whole length is known: a window that just reaches over it and a
    /// hash table to match, instead of zlib's 32 KiB window and 64 KiB table. No match is lost (none
    /// can reach further back than the input), but zlib's set-up shrinks: for the default sizes it
    /// allocates about 256 KiB and clears the hash table, which made a 1 KiB body's deflate cost
    /// 45–85 µs against 7–40 µs with a 2 KiB window.
    /// - Parameters:
    ///   - format: raw, zlib or gzip framing.
    ///   - level: 0…9.
    ///   - count: the whole input's length.
    /// - Throws: `ZlibError` (`.deflateInit`) when `level` is out of range or zlib cannot allocate.
    public convenience init(format: DeflateFormat = .raw, level: Int, wholeInputOf count: Int) throws(ZlibError) {
        let bits = Self.windowBits(reachingOver: count)
        try self.init(format: format, level: level, windowBits: bits, memoryLevel: min(8, max(1, bits - 7)))
    }

    /// The smallest window (9…15) whose reach covers `count` bytes: zlib reaches back at most the window
    /// less 262 bytes (`MIN_LOOKAHEAD` in its `deflate.h`).
    /// - Parameter count: the input's length.
    /// - Returns: the `windowBits` to ask for.
    public static func windowBits(reachingOver count: Int) -> Int {
        min(15, max(9, Int.bitWidth - (max(0, count) + 261).leadingZeroBitCount))
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input` and returns what zlib emits for it, flushed as `flush` asks.
    /// - Parameters:
    ///   - input: the next uncompressed bytes (may be empty, e.g. to flush or finish).
    ///   - flush: how much to push out; `.finish` ends the stream.
    /// - Returns: the compressed bytes this call produced.
    /// - Throws: `ZlibError` (`.deflate`): `.streamFinished` after the stream ended, `.library` when
    ///   zlib fails.
    public func deflate(_ input: some Collection<UInt8>, flush: Flush) throws(ZlibError) -> [UInt8] {
        guard !isFinished else {
            throw ZlibError(operation: .deflate, kind: .streamFinished, code: .streamError)
        }
        let outcome = input.withContiguousBytes { bytes in run(bytes, flush: flush) }
        let output = try outcome.get()
        if flush == .finish { isFinished = true }
        return output
    }

    private func run(_ input: UnsafeRawBufferPointer, flush: Flush) -> Result<[UInt8], ZlibError> {
        // deflateBound covers one deflate call; a flush marker and the final block add a few bytes.
        let bound = deflateBound(stream, uLong(min(input.count, Int(uInt.max))))
        var output = [UInt8](repeating: 0, count: Int(bound) + 64)
        var produced = 0
        var slices = InputSlices(input)
        defer { stream.pointee.releaseBuffers() }
        while true {
            stream.pointee.refill(from: &slices)
            if produced == output.count { output.append(contentsOf: repeatElement(0, count: max(4096, produced))) }
            let code = output.withUnsafeMutableBytes { outBuffer -> Int32 in
                let room = min(outBuffer.count - produced, Int(uInt.max))
                stream.pointee.next_out = outBuffer.baseAddress!.assumingMemoryBound(to: Bytef.self) + produced
                stream.pointee.avail_out = uInt(room)
                let code = CZlib.deflate(stream, flush.argument)
                produced += room - Int(stream.pointee.avail_out)
                return code
            }
            if code == Z_STREAM_END { break }
            guard code == Z_OK || code == Z_BUF_ERROR else { return .failure(error(code)) }
            let inputLeft = stream.pointee.avail_in > 0 || slices.remaining > 0
            // Done once every byte went in and zlib stopped with room to spare: nothing is left to emit.
            if flush != .finish && !inputLeft && stream.pointee.avail_out > 0 { break }
            // No progress with room and nothing left to give: only a broken stream does that.
            if code == Z_BUF_ERROR && stream.pointee.avail_out > 0 && !inputLeft { return .failure(error(code)) }
        }
        output.removeSubrange(produced...)
        return .success(output)
    }

    private func error(_ code: Int32) -> ZlibError {
        ZlibError(
            operation: .deflate, kind: .library, code: .init(rawValue: code),
            message: stream.pointee.msg.map { String(cString: $0) })
    }
}

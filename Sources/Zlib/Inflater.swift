import CZlib

/// An inflate stream: decompresses input as it is given, with a bound on the total output so a caller
/// can refuse a decompression bomb before it is allocated
/// ([manual: inflate](https://zlib.net/manual.html#Basic)).
///
/// Strict: bytes after the end of the stream are an error, and input the caller marks final must end
/// it. A gzip member's CRC-32 and length, and a zlib stream's Adler-32, are checked by zlib itself.
/// Owns one `z_stream`, freed in `deinit`. Not thread-safe: one caller at a time (the owner's lock).
public final class Inflater {
    /// The framing this inflater expects.
    public let format: DeflateFormat
    /// The most bytes the current stream may inflate to; one more is an error.
    public private(set) var outputLimit: Int
    /// Bytes inflated since the stream began.
    public private(set) var totalOut = 0
    /// Whether the stream has ended; any further input is trailing bytes.
    public private(set) var isFinished = false

    private let stream: UnsafeMutablePointer<z_stream>

    /// Sets up an inflate stream with a 32 KiB window, which inflates what any window size produced
    /// ([manual: inflateInit2](https://zlib.net/manual.html#Advanced)).
    /// - Parameters:
    ///   - format: raw, zlib or gzip framing.
    ///   - outputLimit: the most bytes the stream may inflate to.
    /// - Throws: `ZlibError` (`.inflateInit`) when zlib cannot allocate.
    public init(format: DeflateFormat = .raw, outputLimit: Int = .max) throws(ZlibError) {
        self.format = format
        self.outputLimit = max(0, outputLimit)
        // Heap, because zlib keeps a pointer back to the stream; a local until zlib accepted it, so that a
        // throwing init never reaches deinit (see Deflater.init).
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let code = czlib_inflate_init2(stream, format.windowBitsArgument(15))
        guard code == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ZlibError(operation: .inflateInit, kind: .library, code: .init(rawValue: code))
        }
        self.stream = stream
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a new stream, keeping zlib's allocations ([manual: inflateReset](https://zlib.net/manual.html#Advanced)).
    /// - Parameter outputLimit: the new stream's bound.
    /// - Throws: `ZlibError` (`.inflateReset`) when zlib refuses, which only a broken stream does.
    public func reset(outputLimit: Int = .max) throws(ZlibError) {
        let code = inflateReset(stream)
        guard code == Z_OK else {
            throw ZlibError(operation: .inflateReset, kind: .library, code: .init(rawValue: code))
        }
        self.outputLimit = max(0, outputLimit)
        totalOut = 0
        isFinished = false
    }

    /// Inflates `input`, appending what it produces to `output`.
    ///
    /// Streamed: a stream may arrive over many calls, and `output` may be emptied between them (the
    /// limit counts `totalOut`, not `output.count`). The output buffer offered to zlib never reaches
    /// past the limit by more than one byte, so a bomb is caught on that byte, never allocated.
    /// - Parameters:
    ///   - input: the next compressed bytes.
    ///   - isFinal: no more input follows, so the stream must end within `input`.
    ///   - output: where the inflated bytes are appended.
    /// - Returns: whether the stream ended.
    /// - Throws: `ZlibError` (`.inflate`): `.library` for a corrupt stream or a failed check value
    ///   (`Z_DATA_ERROR` with zlib's message), `.outputLimitExceeded`, `.trailingBytes` when bytes follow
    ///   the end, `.truncated` when `isFinal` input does not end the stream.
    @discardableResult
    public func inflate(_ input: some Collection<UInt8>, isFinal: Bool = false, into output: inout [UInt8])
        throws(ZlibError) -> Bool
    {
        let outcome = input.withContiguousBytes { bytes in run(bytes, into: &output) }
        let code = try outcome.get()
        if isFinal && !isFinished {
            throw ZlibError(operation: .inflate, kind: .truncated, code: .init(rawValue: code))
        }
        return isFinished
    }

    /// Inflates one whole stream.
    /// - Parameters:
    ///   - input: the whole stream, and nothing after it.
    ///   - format: raw, zlib or gzip framing.
    ///   - outputLimit: the most bytes it may inflate to.
    /// - Returns: the inflated bytes.
    /// - Throws: `ZlibError`, as `inflate(_:isFinal:into:)` with `isFinal` set.
    public static func inflate(_ input: some Collection<UInt8>, format: DeflateFormat = .raw, outputLimit: Int = .max)
        throws(ZlibError) -> [UInt8]
    {
        let inflater = try Inflater(format: format, outputLimit: outputLimit)
        var output: [UInt8] = []
        try inflater.inflate(input, isFinal: true, into: &output)
        return output
    }

    /// Inflates `input` through a fixed buffer, handing each piece of output to `consume` as zlib fills it:
    /// memory stays at the buffer's size whatever the stream inflates to, and nothing is kept.
    ///
    /// The limit and the errors are those of `inflate(_:isFinal:into:)`; `isFinished` tells whether the
    /// stream ended, so that a caller can require it after its last input.
    /// - Parameters:
    ///   - input: the next compressed bytes.
    ///   - buffer: where each piece is inflated, reused for the next one (at least one byte).
    ///   - consume: takes each piece, valid only during the call; `false` stops inflating at once.
    /// - Throws: `ZlibError` (`.inflate`): `.library` for a corrupt stream or a failed check value,
    ///   `.outputLimitExceeded`, `.trailingBytes` when bytes follow the end.
    public func inflate(
        _ input: UnsafeRawBufferPointer, through buffer: UnsafeMutableRawBufferPointer,
        _ consume: (UnsafeRawBufferPointer) -> Bool
    ) throws(ZlibError) {
        precondition(buffer.count > 0, "an output buffer of at least one byte")
        if isFinished {
            if input.isEmpty { return }
            throw trailing(input.count)
        }
        var slices = InputSlices(input)
        defer { stream.pointee.releaseBuffers() }
        while true {
            stream.pointee.refill(from: &slices)
            let allowed = outputLimit - totalOut
            // Never more room than the limit plus the one byte that tells a bomb.
            let room = min(buffer.count, allowed < Int(uInt.max) ? allowed + 1 : Int(uInt.max))
            stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(room)
            let code = CZlib.inflate(stream, Z_NO_FLUSH)
            let produced = room - Int(stream.pointee.avail_out)
            totalOut += produced
            if totalOut > outputLimit {
                throw ZlibError(operation: .inflate, kind: .outputLimitExceeded(limit: outputLimit), code: .ok)
            }
            if produced > 0, !consume(UnsafeRawBufferPointer(rebasing: buffer[..<produced])) { return }
            let inputLeft = Int(stream.pointee.avail_in) + slices.remaining
            switch code {
            case Z_STREAM_END:
                isFinished = true
                if inputLeft > 0 { throw trailing(inputLeft) }
                return
            case Z_OK where inputLeft == 0 && produced < room:
                // All input taken and the output not full: nothing is held back.
                return
            case Z_OK:
                continue
            case Z_BUF_ERROR where inputLeft == 0:
                // No progress without more input: a full buffer that held nothing back.
                return
            default:
                throw ZlibError(
                    operation: .inflate, kind: .library, code: .init(rawValue: code),
                    message: stream.pointee.msg.map { String(cString: $0) })
            }
        }
    }

    /// The loop around zlib's `inflate`; returns zlib's last return code.
    private func run(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) -> Result<Int32, ZlibError> {
        if isFinished {
            return input.isEmpty ? .success(Z_STREAM_END) : .failure(trailing(input.count))
        }
        var slices = InputSlices(input)
        var code = Z_OK
        // zlib can stop on a full output with input already taken in (a match half copied): call again.
        var outputWasFull = false
        // The first output room: what the input may plausibly give, grown while it gives more.
        var growth = max(16 << 10, min(input.count, 1 << 20) * 4)
        defer { stream.pointee.releaseBuffers() }
        while true {
            stream.pointee.refill(from: &slices)
            let inputLeft = Int(stream.pointee.avail_in) + slices.remaining
            if inputLeft == 0 && !outputWasFull { return .success(code) }
            let allowed = outputLimit - totalOut
            // A small bound is offered whole, plus the one byte that tells a bomb; else room grows.
            let ceiling = allowed < Int(uInt.max) ? allowed + 1 : Int(uInt.max)
            let room = ceiling <= 256 << 10 ? ceiling : min(ceiling, growth)
            growth = min(growth * 2, 4 << 20)
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: room))
            code = output.withUnsafeMutableBytes { outBuffer in
                stream.pointee.next_out = outBuffer.baseAddress!.assumingMemoryBound(to: Bytef.self) + start
                stream.pointee.avail_out = uInt(room)
                return CZlib.inflate(stream, Z_NO_FLUSH)
            }
            let spare = Int(stream.pointee.avail_out)
            output.removeLast(spare)
            totalOut += room - spare
            outputWasFull = spare == 0
            if totalOut > outputLimit {
                return .failure(
                    ZlibError(operation: .inflate, kind: .outputLimitExceeded(limit: outputLimit), code: .ok))
            }
            switch code {
            case Z_STREAM_END:
                isFinished = true
                let rest = Int(stream.pointee.avail_in) + slices.remaining
                return rest == 0 ? .success(code) : .failure(trailing(rest))
            case Z_OK:
                continue
            case Z_BUF_ERROR where spare == 0 || stream.pointee.avail_in == 0 && slices.remaining == 0:
                // Out of room, or called again after a full output that held nothing back: no error.
                continue
            default:
                // Z_BUF_ERROR with room and input left cannot happen on a sound stream; Z_NEED_DICT is a
                // zlib stream with a preset dictionary, which no format here uses.
                return .failure(
                    ZlibError(
                        operation: .inflate, kind: .library, code: .init(rawValue: code),
                        message: stream.pointee.msg.map { String(cString: $0) }))
            }
        }
    }

    private func trailing(_ count: Int) -> ZlibError {
        ZlibError(operation: .inflate, kind: .trailingBytes(count: count), code: .streamEnd)
    }
}

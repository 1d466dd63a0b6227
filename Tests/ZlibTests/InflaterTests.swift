import TestSupport
import Testing
import Zlib

@Suite struct InflaterTests {
    static let body = CacheCoreFixtures.compressibleBody(length: 20_000)

    static func deflated(_ format: DeflateFormat, _ body: [UInt8] = body) throws -> [UInt8] {
        try Deflater(format: format).deflate(body, flush: .finish)
    }

    @Test(arguments: [DeflateFormat.raw, .zlib, .gzip])
    func aStreamFedAByteAtATimeInflatesAsOneCall(format: DeflateFormat) throws {
        let stream = try Self.deflated(format)
        let inflater = try Inflater(format: format)
        var output: [UInt8] = []
        for (index, byte) in stream.enumerated() {
            let ended = try inflater.inflate([byte], isFinal: index == stream.count - 1, into: &output)
            #expect(ended == (index == stream.count - 1))
        }
        #expect(sameBytes(output, Self.body))
        #expect(inflater.totalOut == Self.body.count && inflater.isFinished)
    }

    @Test(arguments: [DeflateFormat.raw, .zlib, .gzip])
    func aTruncatedStreamIsRefusedWhenTheInputEnds(format: DeflateFormat) throws {
        let stream = try Self.deflated(format)
        for cut in [0, 1, stream.count / 2, stream.count - 1] {
            let inflater = try Inflater(format: format)
            var output: [UInt8] = []
            // Not final: the rest may still come.
            #expect(try inflater.inflate(stream[..<cut], into: &output) == false)
            let error = #expect(throws: ZlibError.self) {
                try inflater.inflate([UInt8](), isFinal: true, into: &output)
            }
            #expect(error?.kind == .truncated && error?.operation == .inflate, "cut at \(cut)")
        }
    }

    /// The check value of a zlib or gzip stream catches any flipped bit, wherever the decoder does not.
    @Test(arguments: [DeflateFormat.zlib, .gzip])
    func aFlippedByteIsADataError(format: DeflateFormat) throws {
        var stream = try Self.deflated(format)
        stream[stream.count / 2] ^= 0x10
        let error = #expect(throws: ZlibError.self) { try Inflater.inflate(stream, format: format) }
        #expect(error?.kind == .library && error?.code == .dataError, "\(String(describing: error))")
    }

    /// Raw deflate has no check value: a stored block's length and its complement must agree.
    @Test func aRawStoredBlockWithAFlippedLengthIsADataError() throws {
        var stream = try Self.deflated(.raw, CacheCoreFixtures.randomBody(length: 3000, seed: 9))
        #expect(stream[0] & 0b110 == 0, "random bytes are stored, not coded")
        stream[1] ^= 0x01
        let error = #expect(throws: ZlibError.self) { try Inflater.inflate(stream) }
        #expect(error?.code == .dataError && error?.message == "invalid stored block lengths")
    }

    @Test func anInvalidBlockTypeIsADataErrorWithZlibsMessage() {
        // BFINAL 1, BTYPE 11: reserved (RFC 1951 §3.2.3).
        let error = #expect(throws: ZlibError.self) { try Inflater.inflate([0x07, 0x00]) }
        #expect(error?.code == .dataError && error?.message == "invalid block type")
        #expect(error?.description == "inflate: Z_DATA_ERROR (invalid block type)")
    }

    @Test(arguments: [DeflateFormat.raw, .zlib, .gzip])
    func bytesAfterTheEndAreRefused(format: DeflateFormat) throws {
        let stream = try Self.deflated(format)
        let error = #expect(throws: ZlibError.self) { try Inflater.inflate(stream + [1, 2, 3], format: format) }
        #expect(error?.kind == .trailingBytes(count: 3))
        // Also when they come in a later call.
        let inflater = try Inflater(format: format)
        var output: [UInt8] = []
        #expect(try inflater.inflate(stream, into: &output))
        #expect(try inflater.inflate([UInt8](), isFinal: true, into: &output))
        let later = #expect(throws: ZlibError.self) { try inflater.inflate([0], into: &output) }
        #expect(later?.kind == .trailingBytes(count: 1))
    }

    @Test func aGzipTrailerWithTheWrongCRCOrLengthIsRefused() throws {
        let stream = try Self.deflated(.gzip)
        var badCRC = stream
        badCRC[stream.count - 8] ^= 1
        let crcError = #expect(throws: ZlibError.self) { try Inflater.inflate(badCRC, format: .gzip) }
        #expect(crcError?.code == .dataError && crcError?.message == "incorrect data check")
        var badLength = stream
        badLength[stream.count - 4] ^= 1
        let lengthError = #expect(throws: ZlibError.self) { try Inflater.inflate(badLength, format: .gzip) }
        #expect(lengthError?.code == .dataError && lengthError?.message == "incorrect length check")
    }

    @Test func aZlibStreamWithTheWrongAdler32IsRefused() throws {
        var stream = try Self.deflated(.zlib)
        stream[stream.count - 1] ^= 1
        let error = #expect(throws: ZlibError.self) { try Inflater.inflate(stream, format: .zlib) }
        #expect(error?.code == .dataError && error?.message == "incorrect data check")
    }

    @Test func aZlibStreamThatNeedsADictionaryIsRefused() {
        // CMF 0x78, FLG 0x20 (FDICT set; 0x7820 is a multiple of 31), then a dictionary id.
        let error = #expect(throws: ZlibError.self) {
            try Inflater.inflate([0x78, 0x20, 0, 0, 0, 1, 0x03, 0x00], format: .zlib)
        }
        #expect(error?.kind == .library && error?.code == .needDictionary)
    }

    @Test func aWrongFormatIsRefused() throws {
        let error = #expect(throws: ZlibError.self) { try Inflater.inflate(try Self.deflated(.zlib), format: .gzip) }
        #expect(error?.code == .dataError && error?.message == "incorrect header check")
    }

    /// 40 000 back-references of 258 zeros: 10 MB from about 8 KB. The bound stops it one byte past,
    /// and nothing near 10 MB is ever allocated.
    @Test func aBombIsStoppedOneBytePastTheLimit() throws {
        let (bomb, inflatedSize) = StubOriginGzip.bomb(repeats: 40_000)
        let limit = 1 << 20
        let inflater = try Inflater(format: .gzip, outputLimit: limit)
        var output: [UInt8] = []
        let error = #expect(throws: ZlibError.self) { try inflater.inflate(bomb, isFinal: true, into: &output) }
        #expect(error?.kind == .outputLimitExceeded(limit: limit))
        #expect(inflater.totalOut == limit + 1 && output.count == limit + 1 && output.capacity < 2 * limit)
        // The same stream within a bound it fits: whole, trailer checked.
        #expect(try Inflater.inflate(bomb, format: .gzip, outputLimit: inflatedSize).count == inflatedSize)
        let short = #expect(throws: ZlibError.self) {
            try Inflater.inflate(bomb, format: .gzip, outputLimit: inflatedSize - 1)
        }
        #expect(short?.kind == .outputLimitExceeded(limit: inflatedSize - 1))
    }

    /// A streamed caller that drains its output still meets the bound: it counts `totalOut`.
    @Test func theLimitCountsEveryCallNotTheOutputHeld() throws {
        let stream = try Self.deflated(.raw)
        let inflater = try Inflater(format: .raw, outputLimit: Self.body.count - 1)
        var output: [UInt8] = []
        let error = #expect(throws: ZlibError.self) {
            for start in stride(from: 0, to: stream.count, by: 100) {
                try inflater.inflate(stream[start..<min(start + 100, stream.count)], into: &output)
                output.removeAll(keepingCapacity: true)
            }
        }
        #expect(error?.kind == .outputLimitExceeded(limit: Self.body.count - 1))
    }

    @Test func aResetInflaterTakesANewStreamAfterAFailure() throws {
        let inflater = try Inflater(format: .raw)
        var output: [UInt8] = []
        #expect(throws: ZlibError.self) { try inflater.inflate([0xFF, 0xFF, 0xFF], into: &output) }
        try inflater.reset(outputLimit: Self.body.count)
        output = []
        #expect(try inflater.inflate(try Self.deflated(.raw), isFinal: true, into: &output))
        #expect(output == Self.body && inflater.outputLimit == Self.body.count)
    }

    @Test func emptyInputIsTruncatedNotEmptyOutput() {
        let error = #expect(throws: ZlibError.self) { try Inflater.inflate([UInt8](), format: .gzip) }
        #expect(error?.kind == .truncated)
    }

    @Test func anEmptyStreamInflatesToNothing() throws {
        for format in [DeflateFormat.raw, .zlib, .gzip] {
            #expect(try Inflater.inflate(try Self.deflated(format, []), format: format, outputLimit: 0) == [])
        }
    }
}

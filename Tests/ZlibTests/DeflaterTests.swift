import TestSupport
import Testing
import Zlib

@Suite struct DeflaterTests {
    static let formats: [DeflateFormat] = [.raw, .zlib, .gzip]

    @Test(arguments: formats, [0, 1, 100, 65_536, 1_000_003])
    func deflatedBytesInflateBack(format: DeflateFormat, count: Int) throws {
        for body in [
            CacheCoreFixtures.compressibleBody(length: count), CacheCoreFixtures.randomBody(length: count, seed: 5),
        ] {
            let deflated = try Deflater(format: format).deflate(body, flush: .finish)
            #expect(try sameBytes(Inflater.inflate(deflated, format: format), body))
        }
    }

    @Test func eachFormatWritesItsOwnFraming() throws {
        let body = Array("hello".utf8)
        let gzip = try Deflater(format: .gzip).deflate(body, flush: .finish)
        #expect(Array(gzip.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(Array(gzip.suffix(8)) == [0x86, 0xA6, 0x10, 0x36, 5, 0, 0, 0])  // CRC-32 and ISIZE
        let zlib = try Deflater(format: .zlib).deflate(body, flush: .finish)
        #expect(zlib[0] == 0x78 && (UInt16(zlib[0]) << 8 | UInt16(zlib[1])) % 31 == 0)
        // Adler-32 of "hello" (RFC 1950 §9), big-endian.
        #expect(Array(zlib.suffix(4)) == [0x06, 0x2C, 0x02, 0x15])
        let raw = try Deflater(format: .raw).deflate(body, flush: .finish)
        #expect(raw.count < zlib.count && raw == Array(zlib.dropFirst(2).dropLast(4)))
    }

    /// What Storage relies on: after a full flush a chunk ends on `00 00 FF FF`, starts with no
    /// dictionary, so it inflates alone, in any order, and the chunks in order are one stream.
    @Test func fullFlushChunksInflateAlone() throws {
        let body = CacheCoreFixtures.compressibleBody(length: 5000)
        let deflater = try Deflater(format: .raw)
        let pieces = [body[0..<2000], body[2000..<4000], body[4000...]]
        let chunks = try pieces.enumerated().map { index, piece in
            try deflater.deflate(piece, flush: index == pieces.count - 1 ? .finish : .full)
        }
        #expect(chunks[0].suffix(4) == [0x00, 0x00, 0xFF, 0xFF])
        #expect(chunks[1].suffix(4) == [0x00, 0x00, 0xFF, 0xFF])
        let inflater = try Inflater(format: .raw)
        for index in [2, 1, 0] {
            try inflater.reset(outputLimit: pieces[index].count)
            var output: [UInt8] = []
            let ended = try inflater.inflate(chunks[index], into: &output)
            #expect(output[...] == pieces[index])
            #expect(ended == (index == 2))
        }
        #expect(try sameBytes(Inflater.inflate(chunks.joined(), format: .raw), body))
    }

    /// A sync flush makes everything so far inflatable while the stream goes on; `.none` may hold input back.
    @Test func aSyncFlushMakesTheOutputSoFarInflatable() throws {
        let deflater = try Deflater(format: .zlib)
        let first = try deflater.deflate(Array("first part, ".utf8), flush: .sync)
        #expect(first.suffix(4) == [0x00, 0x00, 0xFF, 0xFF])
        let inflater = try Inflater(format: .zlib)
        var output: [UInt8] = []
        #expect(try inflater.inflate(first, into: &output) == false)
        #expect(output == Array("first part, ".utf8))
        let held = try deflater.deflate(Array("first part again".utf8), flush: .none)
        let rest = try deflater.deflate([UInt8](), flush: .finish)
        #expect(try inflater.inflate(held + rest, isFinal: true, into: &output))
        #expect(output == Array("first part, first part again".utf8))
    }

    @Test func aFinishedStreamTakesNoMore() throws {
        let deflater = try Deflater()
        _ = try deflater.deflate(Array("done".utf8), flush: .finish)
        #expect(deflater.isFinished)
        let error = #expect(throws: ZlibError.self) { try deflater.deflate([UInt8](), flush: .finish) }
        #expect(error?.kind == .streamFinished && error?.operation == .deflate)
    }

    @Test(arguments: [(-2, 15, 8), (10, 15, 8), (6, 7, 8), (6, 16, 8), (6, 15, 0), (6, 15, 10)])
    func parametersOutOfRangeAreRefused(level: Int, windowBits: Int, memoryLevel: Int) {
        let error = #expect(throws: ZlibError.self) {
            try Deflater(level: level, windowBits: windowBits, memoryLevel: memoryLevel)
        }
        #expect(error?.operation == .deflateInit && error?.code == .streamError)
    }

    @Test(arguments: [
        (0, 9), (1, 9), (250, 9), (251, 10), (762, 10), (763, 11), (1024, 11), (1786, 11), (1787, 12),
        (32_506, 15), (65_536, 15),
    ])
    func theWindowReachesOverTheWholeInput(count: Int, bits: Int) {
        #expect(Deflater.windowBits(reachingOver: count) == bits)
        // zlib's reach is the window less 262 bytes; an input that fits a smaller window gets that one.
        if bits < 15 { #expect((1 << bits) - 262 >= count) }
        if bits > 9 { #expect((1 << (bits - 1)) - 262 < count) }
    }

    @Test(arguments: [0, 1, 100, 737, 1000, 1024, 3000, 20_000, 40_000, 65_536])
    func aSizedDeflateInflatesToTheInputAndCompressesAsWell(count: Int) throws {
        for body in [
            CacheCoreFixtures.compressibleBody(length: count), CacheCoreFixtures.randomBody(length: count, seed: 3),
        ] {
            let sized = try Deflater(level: 6, wholeInputOf: count).deflate(body, flush: .finish)
            let standard = try Deflater(level: 6).deflate(body, flush: .finish)
            #expect(try sameBytes(Inflater.inflate(sized, outputLimit: count), body))
            // Same matches within reach; a smaller hash table may pick a few differently.
            #expect(Double(sized.count) <= Double(standard.count) * 1.05 + 8)
        }
    }
}

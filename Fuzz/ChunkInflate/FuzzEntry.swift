// libFuzzer entry for Storage's chunked gzip bodies (Fuzz/run.sh ChunkInflate): the strict inflater
// that every body read goes through (SQLiteBodyReader inflates each stored chunk with it) and the
// deflater that writes them. Crashes, sanitizer reports and broken invariants are findings; a refused
// chunk is an ordinary outcome.
//
// Input: byte 0 chooses the mode. Bit 0 clear: bytes 3… are a stored chunk as read from the database
// (random, so damaged), bytes 1–2 its recorded length (big-endian), bit 1 whether it is the last
// chunk. Bit 0 set: bytes 3… are a body, cut into chunks of 1 + (bytes 1–2 mod 4096) bytes, deflated at
// level 1 + (byte 0 >> 2) mod 9, inflated back chunk by chunk and as one gzip stream.
import Zlib

@testable import Storage

// libFuzzer calls the entry from one thread at a time; the inflater is reused as a reader reuses its own.
nonisolated(unsafe) let inflater = try! ChunkInflater()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunkInflate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 3, let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let number = Int(input[1]) << 8 | Int(input[2])
    if input[0] & 1 == 0 {
        inflateStored(Array(input[3...]), expectedLength: number, isLast: input[0] & 2 == 2)
    } else {
        roundTrip(input[3...], chunkSize: 1 + number % 4096, level: 1 + Int32(input[0] >> 2) % 9)
    }
    return 0
}

/// A stored chunk is refused, or inflates to exactly its recorded length: never more, never less.
func inflateStored(_ chunk: [UInt8], expectedLength: Int, isLast: Bool) {
    guard let output = try? inflater.inflateChunk(chunk, expectedLength: expectedLength, isLast: isLast) else { return }
    require(output.count == expectedLength, "\(output.count) bytes inflated, \(expectedLength) recorded")
    if !isLast { require(chunk.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]), "accepted without a full flush") }
    // Accepted means the chunk is exactly one well-formed piece of a stream: inflating it again gives the same.
    require((try? inflater.inflateChunk(chunk, expectedLength: expectedLength, isLast: isLast)) == output)
    // One byte less recorded is always refused (the output buffer has one byte to spare to catch that).
    if expectedLength > 0 {
        require((try? inflater.inflateChunk(chunk, expectedLength: expectedLength - 1, isLast: isLast)) == nil)
    }
}

/// Deflate then inflate, chunk by chunk and as the gzip stream clients receive, gives the body back.
func roundTrip(_ body: ArraySlice<UInt8>, chunkSize: Int, level: Int32) {
    let deflater = try! ChunkDeflater(level: level)
    var chunks: [(stored: [UInt8], length: Int)] = []
    var start = body.startIndex
    repeat {
        let end = min(body.endIndex, start + chunkSize)
        let isLast = end == body.endIndex
        let stored = try! deflater.deflateChunk(body[start..<end], isLast: isLast)
        if !isLast { require(stored.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]), "no full flush") }
        chunks.append((stored, end - start))
        start = end
    } while start < body.endIndex
    require((try? deflater.deflateChunk([], isLast: true)) == nil, "a finished stream took more")

    var restored: [UInt8] = []
    for (index, chunk) in chunks.enumerated() {
        let isLast = index == chunks.count - 1
        do {
            restored += try inflater.inflateChunk(chunk.stored, expectedLength: chunk.length, isLast: isLast)
        } catch {
            fatalError("chunk \(index) of \(chunks.count) refused: \(error)")
        }
        // The wrong place in the stream is refused: a middle chunk as the last, the last as a middle one.
        if chunks.count > 1 {
            require((try? inflater.inflateChunk(chunk.stored, expectedLength: chunk.length, isLast: !isLast)) == nil)
        }
    }
    require(restored.elementsEqual(body), "round trip changed the body")

    let crc = CRC32.checksum(body)
    let gzip = GzipFraming.header + chunks.flatMap(\.stored) + GzipFraming.trailer(crc32: crc, length: body.count)
    // zlib's own gzip decoding, as a client's would be.
    require((try? Inflater.inflate(gzip, format: .gzip)) == Array(body), "the gzip stream does not give the body back")
}

/// `precondition` that keeps its message in optimized builds, so a finding says what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant broken") {
    if !condition { fatalError(message()) }
}

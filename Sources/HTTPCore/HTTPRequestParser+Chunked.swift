/// The chunked transfer coding (RFC 9112 §7.1), decoded as it arrives.
extension HTTPRequestParser {
    /// Reads `chunk-size [ chunk-ext ] CRLF`. The size is hexadecimal with an overflow check; the
    /// extensions of the whole body share one byte budget (`maxChunkExtensionBytes`).
    mutating func readChunkSizeLine(_ buffer: UnsafeBufferPointer<UInt8>) -> Step {
        let extensionBudget = limits.maxChunkExtensionBytes - message.chunkExtensionBytes
        // Sixteen hex digits hold any 64-bit size; beyond them and the budget, the line is abuse.
        let lineFeed: Int
        switch scanLine(buffer, window: extensionBudget.saturatingAdd(16 + 2)) {
        case .incomplete: return .needMoreData
        case .tooLong: return fail(.contentTooLarge, "chunk-size line too long")
        case .found(let index): lineFeed = index
        }
        let start = readIndex
        let hasCR = lineFeed > start && buffer[lineFeed - 1] == ASCII.cr
        guard hasCR else { return fail(.badRequest, "chunk-size line ends with a bare LF") }
        let end = lineFeed - 1
        var index = start
        var size: UInt64 = 0
        while index < end, let digit = HTTPByteClass.hexValue(buffer[index]) {
            let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
            guard !overflow else { return fail(.contentTooLarge, "chunk size overflows") }
            size = shifted | UInt64(digit)
            index += 1
        }
        guard index > start else { return fail(.badRequest, "chunk size is not hexadecimal") }
        let extensions = index..<end
        guard extensions.count <= extensionBudget else {
            return fail(.contentTooLarge, "chunk extensions larger than \(limits.maxChunkExtensionBytes) bytes")
        }
        // chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ): nothing may trail the last one.
        guard extensions.isEmpty || !HTTPByteClass.isWhitespace(buffer[end - 1]),
            buffer.isParameterList(extensions, valueRequired: false, spaceAroundEquals: true)
        else { return fail(.badRequest, "malformed chunk extension") }
        message.chunkExtensionBytes += extensions.count
        guard size <= UInt64(Swift.max(0, limits.maxBodyBytes - message.body.count)) else {
            return fail(.contentTooLarge, "body larger than \(limits.maxBodyBytes) bytes")
        }
        consume(through: lineFeed + 1)
        state = size == 0 ? .trailerLines : .chunkData(Int(size))
        return nil
    }

    /// Copies chunk data into the body as it arrives, so the raw coding is not kept.
    mutating func readChunkData(_ buffer: UnsafeBufferPointer<UInt8>, remaining: Int) -> Step {
        let available = buffer.count - readIndex
        guard available > 0 else { return .needMoreData }
        let taken = Swift.min(available, remaining)
        message.body.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[readIndex..<(readIndex + taken)]))
        consume(through: readIndex + taken)
        if taken == remaining {
            state = .chunkDataEnd
            return nil
        }
        state = .chunkData(remaining - taken)
        return .needMoreData
    }

    /// Checks the CRLF that ends chunk data, one byte at a time.
    mutating func readChunkDataEnd(_ buffer: UnsafeBufferPointer<UInt8>) -> Step {
        let start = readIndex
        guard start < buffer.count else { return .needMoreData }
        guard buffer[start] == ASCII.cr else { return fail(.badRequest, "chunk data not followed by CRLF") }
        guard start + 1 < buffer.count else { return .needMoreData }
        guard buffer[start + 1] == ASCII.lf else { return fail(.badRequest, "chunk data not followed by CRLF") }
        consume(through: start + 2)
        state = .chunkSizeLine
        return nil
    }
}

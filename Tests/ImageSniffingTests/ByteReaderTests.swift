import Testing

@testable import ImageSniffing

@Suite struct ByteReaderTests {
    @Test func readsBothByteOrders() {
        let bytes: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
        let values: [UInt64]? = bytes.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, format: .png)
            return try? [
                UInt64(reader.readUInt16(.bigEndian)), UInt64(reader.readUInt16(.littleEndian)),
                UInt64(reader.readUInt32(.bigEndian)), UInt64(reader.readUInt24(.littleEndian)),
                reader.readUInt64BigEndian(),
            ]
        }
        #expect(values == [0x0102, 0x0403, 0x0506_0708, 0x0B0A09, 0x0C0D_0E0F_1011_1213])
    }

    @Test func readingPastTheEndThrowsTruncatedAndDoesNotMove() {
        ([1, 2, 3] as [UInt8]).withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, format: .gif)
            #expect(throws: ImageRejection.self) { try reader.readUInt32(.littleEndian) }
            #expect(reader.offset == 0)
            #expect(throws: ImageRejection.self) { try reader.skip(UInt64.max) }
            #expect(throws: ImageRejection.self) { try reader.skip(-1) }
            #expect(throws: ImageRejection.self) { try reader.seek(to: 4) }
            do throws(ImageRejection) {
                _ = try reader.subReader(4)
                Issue.record("a sub-reader past the end was made")
            } catch {
                #expect(error.reason == .truncated && error.format == .gif)
            }
        }
    }

    @Test func subReaderIsRebasedAndBounded() {
        let seen: [Int]? = ([9, 8, 7, 6] as [UInt8]).withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, format: nil)
            guard (try? reader.skip(1)) != nil, var sub = try? reader.subReader(2) else { return nil }
            return [
                reader.offset, Int((try? sub.readUInt8()) ?? 0), Int((try? sub.readUInt8()) ?? 0), sub.isAtEnd ? 1 : 0,
            ]
        }
        #expect(seen == [3, 8, 7, 1])
    }
}

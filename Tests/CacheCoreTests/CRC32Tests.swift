import CacheCore
import Testing

@Suite struct CRC32Tests {
    @Test func checkValueOfTheStandardString() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func emptyInputIsZero() { #expect(CRC32.checksum([UInt8]()) == 0) }

    @Test func incrementalUpdatesEqualOneShot() {
        var crc = CRC32()
        crc.update(Array("12345".utf8))
        crc.update(Array("6789".utf8))
        #expect(crc.value == 0xCBF4_3926)
    }
}

import HTTPCore
import Testing

/// `Range` parsing and resolution (RFC 9110 §14.1–14.2).
@Suite struct ByteRangeTests {
    static let parsed: [(String, [ByteRange.Spec]?)] = [
        ("bytes=0-499", [.from(first: 0, last: 499)]),
        ("BYTES=0-0", [.from(first: 0, last: 0)]),
        ("bytes=500-", [.from(first: 500, last: nil)]),
        ("bytes=-500", [.suffix(length: 500)]),
        ("bytes=-0", [.suffix(length: 0)]),
        ("bytes=0-0,-1", [.from(first: 0, last: 0), .suffix(length: 1)]),
        (" bytes=1-2 , 4-5 ,", [.from(first: 1, last: 2), .from(first: 4, last: 5)]),
        ("bytes=,1-2", [.from(first: 1, last: 2)]),
        ("bytes=0-99999999999999999999999", [.from(first: 0, last: .max)]),
        ("bytes=5-4", nil),  // last < first
        ("bytes=", nil),
        ("bytes=,", nil),
        ("bytes = 0-1", nil),
        ("bytes=0-1;x", nil),
        ("bytes=a-b", nil),
        ("bytes=1", nil),
        ("bytes=--1", nil),
        ("bytes=1-2-3", nil),
        ("bytes=+1-2", nil),
        ("bytes=1 -2", nil),
        ("items=0-1", nil),  // not a unit we support: ignore
        ("0-1", nil),
        ("", nil),
    ]

    @Test(arguments: parsed)
    func rangeHeaderIsParsed(value: String, specs: [ByteRange.Spec]?) {
        #expect(ByteRange.parse(value) == specs)
    }

    @Test(arguments: [(16, true), (17, false)])
    func numberOfRangesIsBounded(count: Int, accepted: Bool) {
        let value = "bytes=" + (0..<count).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        #expect((ByteRange.parse(value)?.count) == (accepted ? count : nil))
        let resolution = ByteRange.resolve(header: value, length: 1000)
        if accepted {
            guard case .ranges(let ranges) = resolution else {
                Issue.record("expected ranges")
                return
            }
            #expect(ranges.count == count)
        } else {
            #expect(resolution == .whole)
        }
    }

    static func r(_ first: Int, _ last: Int) -> ByteRange { ByteRange(first: first, last: last) }

    static let resolved: [(String?, Int, ByteRange.Resolution)] = [
        (nil, 100, .whole),
        ("bytes=0-49", 100, .ranges([r(0, 49)])),
        ("bytes=0-999", 100, .ranges([r(0, 99)])),  // clamped
        ("bytes=99-", 100, .ranges([r(99, 99)])),
        ("bytes=100-", 100, .unsatisfiable),
        ("bytes=100-200", 100, .unsatisfiable),
        ("bytes=-10", 100, .ranges([r(90, 99)])),
        ("bytes=-1000", 100, .ranges([r(0, 99)])),  // longer suffix: all of it
        ("bytes=-0", 100, .unsatisfiable),
        ("bytes=0-0", 0, .unsatisfiable),
        ("bytes=-5", 0, .unsatisfiable),
        ("bytes=200-300,0-9", 100, .ranges([r(0, 9)])),  // unsatisfiable members are dropped
        ("bytes=50-59,0-9", 100, .ranges([r(50, 59), r(0, 9)])),  // client order kept
        ("bytes=0-9,5-19", 100, .ranges([r(0, 19)])),  // overlap coalesced
        ("bytes=10-19,0-9", 100, .ranges([r(0, 19)])),  // adjacent coalesced
        ("bytes=0-,0-,0-", 100, .ranges([r(0, 99)])),
        ("bytes=50-59,0-9,8-12", 100, .ranges([r(0, 12), r(50, 59)])),
        ("bytes=-10,95-", 100, .ranges([r(90, 99)])),
        ("bytes=9-3", 100, .whole),  // invalid: ignored, not 416
        ("bytes=0-99999999999999999999999", 100, .ranges([r(0, 99)])),
        ("bytes=99999999999999999999999-", 100, .unsatisfiable),
    ]

    @Test(arguments: resolved)
    func rangeIsResolvedAgainstLength(value: String?, length: Int, resolution: ByteRange.Resolution) {
        #expect(ByteRange.resolve(header: value, length: length) == resolution)
    }

    @Test func contentRangeValuesAreFormatted() {
        let range = ByteRange(first: 0, last: 499)
        #expect(range.contentRange(completeLength: 1234) == "bytes 0-499/1234")
        #expect(ByteRange.unsatisfiedContentRange(completeLength: 1234) == "bytes */1234")
        #expect(range.count == 500)
        #expect(range.offsets == 0..<500)
    }
}

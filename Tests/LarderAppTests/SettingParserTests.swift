import CachePolicy
import LarderApp
import Testing
import Upstream

/// Each kind of value: what it accepts, and that what it refuses is named with what was expected.
@Suite struct SettingParserTests {
    /// Parses `text`, returning the rejection rather than throwing it.
    func outcome<Value>(_ parser: SettingParser<Value>, _ text: String) -> Result<Value, SettingRejection> {
        Result { () throws(SettingRejection) in try parser.parse(text) }
    }

    @Test(arguments: [
        ("0", 0), ("512", 512), ("64K", 65_536), ("64M", 67_108_864), ("1G", 1 << 30), ("2T", 2 << 40),
        ("64m", 67_108_864), ("1KiB", 1024), ("1kb", 1024), ("10B", 10), (" 64M ", 67_108_864),
    ])
    func sizeReadsBytesWithBinarySuffixes(_ text: String, _ bytes: Int) throws {
        #expect(try SettingParser<Int>.size.parse(text) == bytes)
    }

    @Test(arguments: ["-1", "12Q", "1.5G", "", "M", "G1", "one", "8388608T", "64 M"])
    func sizeRefusesWhatIsNotAWholeNumberOfUnits(_ text: String) {
        let expected = "a size in bytes (e.g. 500M, 2G, 0 for none)"
        #expect(outcome(.size, text) == .failure(SettingRejection(text: text, expected: expected)))
        #expect(outcome(.sizeBound, text) == .failure(SettingRejection(text: text, expected: expected)))
    }

    @Test func sizeBoundReadsZeroAsNoBound() throws {
        #expect(try SettingParser<Int?>.sizeBound.parse("0") == nil)
        #expect(try SettingParser<Int?>.sizeBound.parse("1G") == 1 << 30)
    }

    @Test func positiveSizeRefusesZero() throws {
        #expect(try SettingParser<Int>.positiveSize.parse("256M") == 256 << 20)
        #expect(
            outcome(.positiveSize, "0")
                == .failure(SettingRejection(text: "0", expected: "a size in bytes above 0 (e.g. 256M, 2G)")))
        #expect(throws: SettingRejection.self) { try SettingParser<Int>.positiveSize.parse("-5") }
    }

    @Test(arguments: [("0", 0.0), ("10", 10.0), ("0.3", 0.3), ("1e2", 100.0)])
    func secondsReadFractions(_ text: String, _ seconds: Double) throws {
        #expect(try SettingParser<Double>.seconds.parse(text) == seconds)
    }

    @Test(arguments: ["-1", "inf", "nan", "ten", "", "10s"])
    func secondsRefuseNegativeInfiniteAndWords(_ text: String) {
        #expect(
            outcome(.seconds, text) == .failure(SettingRejection(text: text, expected: "a number of seconds")))
    }

    @Test(arguments: [
        ("0", 0), ("90", 90), ("45s", 45), ("15m", 900), ("12H", 43_200), ("1d", 86_400), (" 7d ", 604_800),
    ])
    func durationReadsSecondsAndUnits(_ text: String, _ seconds: Int64) throws {
        #expect(try SettingParser<Int64>.duration.parse(text) == seconds)
    }

    @Test(arguments: ["-1", "1.5h", "d", "", "1w", "2 d", "+3", "99999999999999999d"])
    func durationRefusesFractionsUnknownUnitsAndOverflow(_ text: String) {
        #expect(
            outcome(.duration, text)
                == .failure(
                    SettingRejection(text: text, expected: "a duration in seconds, or with s, m, h, d (e.g. 1d, 0)")))
    }

    @Test func positiveSecondsRefuseZero() throws {
        #expect(try SettingParser<Double>.positiveSeconds.parse("0.5") == 0.5)
        #expect(
            outcome(.positiveSeconds, "0")
                == .failure(SettingRejection(text: "0", expected: "a positive number of seconds")))
    }

    @Test func integerKeepsToItsRange() throws {
        let port = SettingParser<Int>.integer(in: 0...65_535)
        #expect(try port.parse("0") == 0)
        #expect(try port.parse("65535") == 65_535)
        for text in ["65536", "-1", "eighty", "1e3", "8080.0", ""] {
            #expect(
                outcome(port, text) == .failure(SettingRejection(text: text, expected: "an integer in 0...65535")))
        }
    }

    @Test(arguments: [
        ("true", true), ("TRUE", true), ("1", true), ("yes", true), ("On", true),
        ("false", false), ("0", false), ("no", false), ("OFF", false),
    ])
    func booleanReadsTheUsualSpellings(_ text: String, _ value: Bool) throws {
        #expect(try SettingParser<Bool>.boolean.parse(text) == value)
    }

    @Test(arguments: ["maybe", "", "2", "y"])
    func booleanRefusesEverythingElse(_ text: String) {
        #expect(outcome(.boolean, text) == .failure(SettingRejection(text: text, expected: "true or false")))
    }

    @Test func choiceReadsAnyCaseAndListsTheChoicesWhenRefusing() throws {
        let policy = SettingParser<FilterDefaultPolicy>.choice("policy")
        #expect(try policy.parse("BYPASS") == .bypass)
        #expect(try policy.parse("http") == .http)
        #expect(
            outcome(policy, "store-everything")
                == .failure(SettingRejection(text: "store-everything", expected: "one of http, bypass")))
        #expect(policy.valueName == "policy")
    }

    @Test func cidrListReadsIPv4AndIPv6BetweenCommasAndBlanks() throws {
        let networks = try SettingParser<[CIDR]>.cidrList.parse("10.0.0.0/8, fd00::/8,,127.0.0.1/32 ")
        let expected = ["10.0.0.0/8", "fd00::/8", "127.0.0.1/32"].compactMap { CIDR($0) }
        #expect(expected.count == 3)
        #expect(networks == expected)
        #expect(try SettingParser<[CIDR]>.cidrList.parse("").isEmpty)
        #expect(try SettingParser<[CIDR]>.cidrList.parse(" , ").isEmpty)
    }

    @Test(arguments: ["junk", "10.0.0.0/33", "fd00::/129", "10.0.0/8", "::g/8"])
    func cidrListNamesTheBadItem(_ item: String) {
        let expected = "a CIDR (e.g. 10.0.0.0/8, fd00::/8)"
        #expect(
            outcome(.cidrList, "127.0.0.0/8,\(item)") == .failure(SettingRejection(text: item, expected: expected)))
    }

    @Test func tokenTakesLettersDigitsAndThreeMarks() throws {
        #expect(try SettingParser<String>.token.parse("larder-2.eu_west") == "larder-2.eu_west")
        for text in ["", "a b", "a/b", "lärder", "a,b"] {
            #expect(
                outcome(.token, text)
                    == .failure(SettingRejection(text: text, expected: "a token (letters, digits, '-', '.', '_')")))
        }
    }

    @Test func optionalTextReadsEmptyAsNone() throws {
        #expect(try SettingParser<String?>.optionalText("token").parse("") == nil)
        #expect(try SettingParser<String?>.optionalText("token").parse("s3cret") == "s3cret")
    }
}

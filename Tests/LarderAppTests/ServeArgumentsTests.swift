import LarderApp
import Testing

/// `serve`'s own command line, parsed from the declarations.
@Suite struct ServeArgumentsTests {
    func parse(_ arguments: [String]) throws(SettingsError) -> ServeArguments {
        try ServeArguments.parse(arguments, declarations: ServeSettings.declarations)
    }

    @Test func flagsTakeTheirValueAfterASpaceOrAnEqualsSign() throws {
        let parsed = try parse(["--port", "0", "--host=127.0.0.1", "--admin-token=a=b", "--via-name="])
        #expect(parsed == .flags(["port": "0", "host": "127.0.0.1", "admin-token": "a=b", "via-name": ""]))
    }

    @Test func aRepeatableFlagGathersItsValuesAndAnotherFlagKeepsItsLast() throws {
        let parsed = try parse([
            "--allow-network", "10.0.0.0/8", "--port", "1", "--allow-network=fd00::/8", "--port", "2",
        ])
        #expect(parsed == .flags(["allow-network": "10.0.0.0/8,fd00::/8", "port": "2"]))
    }

    @Test func aValueMayStartWithOneDash() throws {
        #expect(try parse(["--max-size", "-1"]) == .flags(["max-size": "-1"]))
    }

    @Test func helpWinsAnywhere() throws {
        #expect(try parse(["--help"]) == .help)
        #expect(try parse(["--port", "1", "-h"]) == .help)
        #expect(try parse(["--nonsense", "--help"]) == .help)
    }

    @Test func nothingGivenIsNoFlags() throws {
        #expect(try parse([]) == .flags([:]))
        #expect(try parse(["--"]) == .flags([:]))
    }

    @Test func anUnknownFlagIsRefusedWithTheClosestOne() {
        #expect(throws: SettingsError.unknownFlag("--portt", suggestion: "--port")) { try parse(["--portt", "1"]) }
        #expect(throws: SettingsError.unknownFlag("--max-sise", suggestion: "--max-size")) {
            try parse(["--max-sise=1G"])
        }
        #expect(throws: SettingsError.unknownFlag("--allow-networks", suggestion: "--allow-network")) {
            try parse(["--allow-networks", "10.0.0.0/8"])
        }
        #expect(throws: SettingsError.unknownFlag("-port", suggestion: "--port")) { try parse(["-port", "1"]) }
        #expect(throws: SettingsError.unknownFlag("--cache-everything", suggestion: nil)) {
            try parse(["--cache-everything"])
        }
        #expect(throws: SettingsError.unknownFlag("-p", suggestion: nil)) { try parse(["-p", "1"]) }
        let message = SettingsError.unknownFlag("--portt", suggestion: "--port").description
        #expect(message == "unknown flag '--portt'; did you mean '--port'?")
    }

    @Test func aFlagWithoutItsValueIsRefused() {
        #expect(throws: SettingsError.missingValue(flag: "--port")) { try parse(["--port"]) }
        #expect(throws: SettingsError.missingValue(flag: "--port")) { try parse(["--port", "--host", "::"]) }
    }

    @Test func anArgumentThatIsNotAFlagIsRefused() {
        #expect(throws: SettingsError.unexpectedArgument("8080")) { try parse(["8080"]) }
        #expect(throws: SettingsError.unexpectedArgument("extra")) { try parse(["--port", "1", "extra"]) }
        #expect(throws: SettingsError.unexpectedArgument("--port")) { try parse(["--", "--port", "1"]) }
    }
}

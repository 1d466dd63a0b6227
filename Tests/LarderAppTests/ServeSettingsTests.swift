import CachePolicy
import HTTPCore
import HTTPServer
import LarderApp
import Logging
import Testing
import Upstream

/// Resolution of the real table: flag over environment over default, typed values, and errors that
/// name where each bad value came from.
@Suite struct ServeSettingsTests {
    @Test func defaultsResolveToTheDocumentedValues() throws {
        let settings = try ServeSettings.resolve(flags: [:], environment: [:])
        #expect(settings.listening.host == "0.0.0.0")
        #expect(settings.listening.port == 8080)
        #expect(settings.listening.serverConfiguration.parserLimits.maxHeaderBytes == 32_768)
        #expect(settings.logging.format == .text)
        #expect(settings.logging.level == .info)
        #expect(settings.logging.accessLog)
        #expect(settings.store.databasePath == "./larder.db")
        #expect(settings.store.maxSize == 1 << 30)
        #expect(settings.fetch.allowNetworks.isEmpty)
        #expect(settings.fetch.maxObjectBytes == 256 << 20)
        #expect(settings.fetch.hotBytes == 64 << 20)
        #expect(settings.fetch.defaultPolicy == .http)
        #expect(settings.fetch.originTLS == OriginTLS())
        #expect(settings.fetch.staleIfDisconnected == 86_400)
        #expect(settings.admin.token == nil)
        #expect(settings.maintenance.sweepInterval == 60)
    }

    @Test func flagWinsOverEnvironmentWhichWinsOverDefault() throws {
        let settings = try ServeSettings.resolve(
            flags: ["port": "9000", "max-size": "0"],
            environment: ["LARDER_PORT": "9001", "LARDER_MAX_SIZE": "2G", "LARDER_HOST": "127.0.0.1"])
        #expect(settings.listening.port == 9000)
        #expect(settings.store.maxSize == nil)
        #expect(settings.listening.host == "127.0.0.1")
        #expect(settings.listening.backlog == 511)
    }

    @Test func staleIfDisconnectedTakesADurationFromTheFlagOrTheEnvironment() throws {
        let flagged = try ServeSettings.resolve(flags: ["stale-if-disconnected": "2h"], environment: [:])
        #expect(flagged.fetch.staleIfDisconnected == 7_200)
        let off = try ServeSettings.resolve(flags: [:], environment: ["LARDER_STALE_IF_DISCONNECTED": "0"])
        #expect(off.fetch.staleIfDisconnected == 0)
        #expect(throws: (any Error).self) {
            try ServeSettings.resolve(flags: ["stale-if-disconnected": "1 week"], environment: [:])
        }
    }

    @Test func targetedCacheControlIsAnOrderedListOfFieldNames() throws {
        #expect(try ServeSettings.resolve(flags: [:], environment: [:]).fetch.targetedCacheControl == .standard)
        let listed = try ServeSettings.resolve(
            flags: ["targeted-cache-control": " Larder-Cache-Control , CDN-Cache-Control "], environment: [:])
        #expect(listed.fetch.targetedCacheControl.fieldNames == ["Larder-Cache-Control", "CDN-Cache-Control"])
        let off = try ServeSettings.resolve(flags: ["targeted-cache-control": ""], environment: [:])
        #expect(off.fetch.targetedCacheControl.fieldNames.isEmpty)
        let fromEnvironment = try ServeSettings.resolve(
            flags: [:], environment: ["LARDER_TARGETED_CACHE_CONTROL": "Edge-Cache-Control"])
        #expect(fromEnvironment.fetch.targetedCacheControl.fieldNames == ["Edge-Cache-Control"])
        #expect(throws: (any Error).self) {
            try ServeSettings.resolve(flags: ["targeted-cache-control": "CDN Cache Control"], environment: [:])
        }
        #expect(throws: (any Error).self) {
            try ServeSettings.resolve(flags: ["targeted-cache-control": "A-CC,a-cc"], environment: [:])
        }
    }

    @Test func anEmptyVariableCountsAsUnset() throws {
        let settings = try ServeSettings.resolve(flags: [:], environment: ["LARDER_PORT": "", "LARDER_DB": ""])
        #expect(settings.listening.port == 8080)
        #expect(settings.store.databasePath == "./larder.db")
    }

    @Test func anEmptyFlagIsTaken() throws {
        let settings = try ServeSettings.resolve(
            flags: ["admin-token": ""], environment: ["LARDER_ADMIN_TOKEN": "from-the-environment"])
        #expect(settings.admin.token == nil)
    }

    @Test func originTLSSettingsBecomeTheClientsTLS() throws {
        let settings = try ServeSettings.resolve(
            flags: ["origin-ca-only": "yes", "origin-client-cert": "/c.pem"],
            environment: ["LARDER_ORIGIN_CA_FILE": "/ca.pem", "LARDER_ORIGIN_CLIENT_KEY": "/k.pem"])
        #expect(
            settings.fetch.originTLS
                == OriginTLS(
                    caFile: "/ca.pem", trustsOnlyCAFile: true, clientCertificateFile: "/c.pem", clientKeyFile: "/k.pem")
        )
        #expect(throws: SettingsError.self) {
            try ServeSettings.resolve(flags: ["origin-ca-only": "perhaps"], environment: [:])
        }
    }

    @Test func aBadValueIsNamedByTheFlagOrTheVariableItCameFrom() {
        #expect(throws: SettingsError.invalidValues([invalid(.flag("--max-size"), "12Q", Self.size)])) {
            try ServeSettings.resolve(flags: ["max-size": "12Q"], environment: ["LARDER_MAX_SIZE": "1.5G"])
        }
        #expect(throws: SettingsError.invalidValues([invalid(.environment("LARDER_MAX_SIZE"), "1.5G", Self.size)])) {
            try ServeSettings.resolve(flags: [:], environment: ["LARDER_MAX_SIZE": "1.5G"])
        }
        let error = SettingsError.invalidValues([
            invalid(.environment("LARDER_PORT"), "eighty", "an integer in 0...65535")
        ])
        #expect(error.description == "LARDER_PORT: 'eighty' is not an integer in 0...65535")
        #expect(SettingSource.defaultValue("--max-size").description == "default of --max-size")
    }

    @Test func schedulingIsBatchUnlessSetToNormal() throws {
        #expect(try ServeSettings.resolve(flags: [:], environment: [:]).listening.scheduling == .batch)
        let normal = try ServeSettings.resolve(flags: [:], environment: ["LARDER_SCHEDULING": "Normal"])
        #expect(normal.listening.scheduling == .normal)
        #expect(
            throws: SettingsError.invalidValues([invalid(.flag("--scheduling"), "fifo", "one of batch, normal")])
        ) {
            try ServeSettings.resolve(flags: ["scheduling": "fifo"], environment: [:])
        }
    }

    @Test func storeDeflateLevelIsSixUnlessSetFromOneToNine() throws {
        #expect(try ServeSettings.resolve(flags: [:], environment: [:]).store.deflateLevel == 6)
        let fastest = try ServeSettings.resolve(flags: ["store-deflate-level": "1"], environment: [:])
        #expect(fastest.store.deflateLevel == 1)
        for bad in ["0", "10", "best"] {
            #expect(
                throws: SettingsError.invalidValues([
                    invalid(.flag("--store-deflate-level"), bad, "an integer in 1...9")
                ])
            ) {
                try ServeSettings.resolve(flags: ["store-deflate-level": bad], environment: [:])
            }
        }
    }

    @Test func everyBadValueIsReportedInDeclarationOrder() throws {
        let error = try #require(throws: SettingsError.self) {
            try ServeSettings.resolve(
                flags: ["sweep-interval": "soon", "log-format": "xml"], environment: ["LARDER_PORT": "-1"])
        }
        #expect(
            error.description == """
                LARDER_PORT: '-1' is not an integer in 0...65535
                --log-format: 'xml' is not one of text, json
                --sweep-interval: 'soon' is not a number of seconds
                """)
    }

    @Test func allowNetworkReadsTheSingularVariableBeforeTheDeprecatedPlural() throws {
        let plural = try ServeSettings.resolve(flags: [:], environment: ["LARDER_ALLOW_NETWORKS": "10.0.0.0/8"])
        #expect(plural.fetch.allowNetworks.map(\.description) == ["10.0.0.0/8"])
        let both = try ServeSettings.resolve(
            flags: [:], environment: ["LARDER_ALLOW_NETWORK": "127.0.0.0/8", "LARDER_ALLOW_NETWORKS": "10.0.0.0/8"])
        #expect(both.fetch.allowNetworks.map(\.description) == ["127.0.0.0/8"])
        #expect(
            throws: SettingsError.invalidValues([invalid(.environment("LARDER_ALLOW_NETWORKS"), "junk", Self.cidr)])
        ) {
            try ServeSettings.resolve(flags: [:], environment: ["LARDER_ALLOW_NETWORKS": "junk"])
        }
    }

    @Test func aGroupResolvesAloneForOtherCommands() throws {
        let store = try StoreSettings.resolve(flags: ["db": "/tmp/x.db"], environment: ["LARDER_MAX_SIZE": "0"])
        #expect(store.databasePath == "/tmp/x.db")
        #expect(store.maxSize == nil)
        #expect(throws: SettingsError.self) { try StoreSettings.resolve(environment: ["LARDER_MAX_SIZE": "big"]) }
        // Another group's bad value is not this group's business.
        #expect(try StoreSettings.resolve(environment: ["LARDER_PORT": "eighty"]).maxSize == 1 << 30)
    }

    static let size = "a size in bytes (e.g. 500M, 2G, 0 for none)"
    static let cidr = "a CIDR (e.g. 10.0.0.0/8, fd00::/8)"

    func invalid(_ source: SettingSource, _ text: String, _ expected: String) -> SettingRejection {
        SettingRejection(text: text, expected: expected, source: source)
    }
}

/// `--filters-file` and `--filters-mode`: no file and `seed` by default, the mode checked at start.
@Suite struct FiltersSettingsTests {
    @Test func noFileAndSeedByDefaultReplaceFromTheEnvironment() throws {
        let defaults = try ServeSettings.resolve(flags: [:], environment: [:])
        #expect(defaults.filters.file == nil)
        #expect(defaults.filters.mode == .seed)
        let replace = try ServeSettings.resolve(
            flags: ["filters-file": "/etc/larder/filters.json"], environment: ["LARDER_FILTERS_MODE": "replace"])
        #expect(replace.filters.file == "/etc/larder/filters.json")
        #expect(replace.filters.mode == .replace)
    }

    @Test func anUnknownModeIsRefusedNamingTheChoices() {
        #expect(throws: SettingsError.self) {
            try ServeSettings.resolve(flags: ["filters-mode": "merge"], environment: [:])
        }
        do {
            _ = try ServeSettings.resolve(flags: ["filters-mode": "merge"], environment: [:])
        } catch {
            #expect(error.description.contains("--filters-mode: 'merge' is not one of seed, replace"), "\(error)")
        }
    }
}

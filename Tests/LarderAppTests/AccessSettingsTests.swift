import Foundation
import LarderApp
import TestSupport
import Testing

/// The access settings: `NAME=SECRET` pairs, signing keys, and secrets files. Every refusal names the
/// setting or the file and line, and never repeats a secret.
@Suite struct AccessSettingsTests {
    @Test func everythingIsOffByDefault() throws {
        let settings = try ServeSettings.resolve(flags: [:], environment: [:])
        #expect(try settings.fetchAccess.allSigningKeys().isEmpty)
        #expect(try settings.fetchAccess.allTokens().isEmpty)
        #expect(try settings.admin.tokens().isEmpty)
        #expect(settings.admin.metricsAccess == .public)
    }

    @Test func pairsAndKeysComeFromFlagsAndTheEnvironment() throws {
        let settings = try ServeSettings.resolve(
            flags: ["fetch-token": "billing=s3cret-1,search=s3cret-2", "admin-read-token": "viewer=v-secret"],
            environment: [
                "LARDER_URL_SIGNING_KEY": "new-key-0123456789,old-key-0123456789",
                "LARDER_ADMIN_FULL_TOKEN": "ops=o-secret",
                "LARDER_ADMIN_TOKEN": "legacy-token",
            ])
        #expect(
            try settings.fetchAccess.allTokens() == [
                NamedSecret(name: "billing", secret: "s3cret-1"), NamedSecret(name: "search", secret: "s3cret-2"),
            ])
        #expect(try settings.fetchAccess.allSigningKeys() == ["new-key-0123456789", "old-key-0123456789"])
        let tokens = try settings.admin.tokens()
        #expect(tokens.map(\.name) == ["admin", "viewer", "ops"])
        #expect(tokens.map(\.scope) == [.full, .read, .full])
    }

    @Test(arguments: [
        ("fetch-token", "billing"), ("fetch-token", "=s3cret-value"), ("fetch-token", "bil ling=s3cret-value"),
        ("fetch-token", "billing=s3cret value"), ("admin-read-token", "viewer=s3cret\"value"),
        ("url-signing-key", "s3cret-short"),
    ])
    func aBadValueIsRefusedWithoutShowingTheSecret(flag: String, value: String) {
        do {
            _ = try ServeSettings.resolve(flags: [flag: value], environment: [:])
            Issue.record("--\(flag) \(value) was accepted")
        } catch {
            #expect(error.description.contains("--\(flag)"), "\(error)")
            #expect(!error.description.contains("s3cret"), "\(error)")
        }
    }

    @Test func secretsFilesAreReadLineByLineSkippingBlanksAndComments() throws {
        let keys = try TemporaryFile("# rotated 2026-11\nfile-key-0123456789abc\n\n  second-key-0123456789  \n")
        let tokens = try TemporaryFile("billing=file-secret-1\n# a comment\nsearch=file-secret-2\n")
        let admin = try TemporaryFile("read viewer=read-file-secret\nfull ops=full-file-secret\n")
        let single = try TemporaryFile("\nthe-single-token\n")
        let settings = try ServeSettings.resolve(
            flags: [
                "url-signing-key": "flag-key-0123456789", "url-signing-key-file": keys.path,
                "fetch-token-file": tokens.path, "admin-tokens-file": admin.path,
            ],
            environment: ["LARDER_ADMIN_TOKEN_FILE": single.path])
        #expect(
            try settings.fetchAccess.allSigningKeys() == [
                "flag-key-0123456789", "file-key-0123456789abc", "second-key-0123456789",
            ])
        #expect(try settings.fetchAccess.allTokens().map(\.name) == ["billing", "search"])
        let adminTokens = try settings.admin.tokens()
        #expect(adminTokens.map(\.name) == ["admin", "viewer", "ops"])
        #expect(adminTokens.first?.secret == "the-single-token")
        #expect(adminTokens.map(\.scope) == [.full, .read, .full])
    }

    @Test func aBadFileLineIsNamedByNumberAndNeverQuoted() throws {
        let cases: [(text: String, flag: String, line: Int)] = [
            ("good-key-0123456789\nshort-s3cret\n", "url-signing-key-file", 2),
            ("billing=ok-secret\n\nnot-a-pair-s3cret\n", "fetch-token-file", 3),
            ("admin viewer=s3cret-value\n", "admin-tokens-file", 1),
            ("read viewer=s3cret value\n", "admin-tokens-file", 1),
        ]
        for (text, flag, line) in cases {
            let file = try TemporaryFile(text)
            let settings = try ServeSettings.resolve(flags: [flag: file.path], environment: [:])
            do {
                _ = try settings.fetchAccess.allSigningKeys()
                _ = try settings.fetchAccess.allTokens()
                _ = try settings.admin.tokens()
                Issue.record("\(flag) with \(text) was accepted")
            } catch {
                #expect(error.description.hasPrefix("\(file.path):\(line) "), "\(error)")
                #expect(!error.description.contains("s3cret"), "\(error)")
            }
        }
    }

    @Test func aMissingFileTwoSourcesOfTheSingleTokenAndDuplicatesAreRefused() throws {
        let missing = try ServeSettings.resolve(flags: ["fetch-token-file": "/nonexistent/tokens"], environment: [:])
        #expect(throws: SecretFileError.self) { try missing.fetchAccess.allTokens() }
        let single = try TemporaryFile("from-a-file\n")
        let both = try ServeSettings.resolve(
            flags: ["admin-token": "from-a-flag", "admin-token-file": single.path], environment: [:])
        #expect(throws: SecretFileError.self) { try both.admin.tokens() }
        let sameName = try ServeSettings.resolve(flags: ["fetch-token": "a=secret-1,a=secret-2"], environment: [:])
        #expect(throws: SecretFileError.self) { try sameName.fetchAccess.allTokens() }
        let sameSecret = try ServeSettings.resolve(
            flags: ["admin-read-token": "a=same-s3cret", "admin-full-token": "b=same-s3cret"], environment: [:])
        do {
            _ = try sameSecret.admin.tokens()
            Issue.record("one secret for two admin tokens was accepted")
        } catch {
            #expect(!error.description.contains("same-s3cret"))
        }
    }
}

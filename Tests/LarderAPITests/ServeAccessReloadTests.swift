import Foundation
import HTTPCore
import LarderAPI
import LarderApp
import LarderTesting
import TestSupport
import Testing

/// Rotation without a restart, on `serve`'s whole wiring over a real socket (`LarderTestApp(serving:)`,
/// `.live`): `reloadAccess()` is what `serve` runs on SIGHUP. Keys and tokens added to their files are
/// accepted only after the reload, removed ones refused after it, flag-given ones stay, and a file that
/// cannot be used leaves the policies in force.
@Suite(.serialized) struct ServeAccessReloadTests {
    static let oldKey = "reload-old-key-0123456"
    static let newKey = "reload-new-key-6543210"
    static let flagKey = "reload-flag-key-000000"

    static func app(
        _ directory: StorageTestDirectory, _ flags: [String: String], log: LogRecorder
    ) throws -> LarderTestApp {
        try LarderTestApp(
            serving: flags.merging(["db": directory.file(), "allow-network": "127.0.0.0/8"]) { given, _ in given },
            logger: log.logger())
    }

    static func signed(_ origin: StubOrigin, _ path: String, key: String) -> String {
        URLSigner(keys: [Array(key.utf8)]).signedPath(url: origin.url(path))!
    }

    static func reloads(_ client: LarderTestClient, _ result: String) throws -> String {
        let scrape = try client.request("GET", "/metrics").text
        let prefix = "larder_access_reloads_total{result=\"\(result)\"} "
        return scrape.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            ?? "absent"
    }

    @Test func aKeyAddedToTheFileSignsOnlyAfterTheReloadAndARemovedOneIsRefusedAfterIt() async throws {
        let directory = StorageTestDirectory()
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/a", with: .ok("a"))
        let keys = try TemporaryFile("\(Self.oldKey)\n")
        let log = LogRecorder()
        let app = try Self.app(directory, ["url-signing-key-file": keys.path], log: log)
        try await app.test(.live) { client in
            let old = Self.signed(origin, "/a", key: Self.oldKey)
            let new = Self.signed(origin, "/a", key: Self.newKey)
            #expect(try client.request("GET", old).status == 200)
            #expect(try client.request("GET", new).status == 403)
            // Rolling: the new key first (it signs), the old one still verifying.
            try keys.write("\(Self.newKey)\n\(Self.oldKey)\n")
            #expect(try client.request("GET", new).status == 403, "nothing changes before the reload")
            #expect(
                app.reloadAccess()
                    == .reloaded(
                        "signing keys 2 (1 added, 0 removed); fetch tokens none (unchanged); admin tokens none (unchanged)"
                    ))
            #expect(try client.request("GET", new).status == 200)
            #expect(try client.request("GET", old).status == 200)
            try keys.write("\(Self.newKey)\n")
            #expect(try client.request("GET", old).status == 200, "nothing changes before the reload")
            app.reloadAccess()
            let refused = try client.request("GET", old)
            #expect(refused.status == 403)
            #expect(refused.text.contains("signature-invalid"))
            #expect(try client.request("GET", new).status == 200)
            #expect(try Self.reloads(client, "ok") == "2")
            #expect(try Self.reloads(client, "failed") == "0")
        }
        #expect(
            log.text.contains("access reloaded from \(keys.path): signing keys 1 (0 added, 1 removed)"), "\(log.text)")
        #expect(!log.text.contains(Self.oldKey))
        #expect(!log.text.contains(Self.newKey))
    }

    @Test func aBrokenOrMissingFileLeavesEveryKeyAndTokenInForceAndNamesTheLine() async throws {
        let directory = StorageTestDirectory()
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/a", with: .ok("a"))
        let keys = try TemporaryFile("\(Self.oldKey)\n")
        let tokens = try TemporaryFile("billing=billing-s3cret-1\n")
        let log = LogRecorder()
        let app = try Self.app(
            directory, ["url-signing-key-file": keys.path, "fetch-token-file": tokens.path], log: log)
        try await app.test(.live) { client in
            let old = Self.signed(origin, "/a", key: Self.oldKey)
            let new = Self.signed(origin, "/a", key: Self.newKey)
            try keys.write("\(Self.newKey)\n")
            #expect(app.reloadAccess() != nil)
            #expect(try client.request("GET", new).status == 200)
            // The key file is fine, the line after the new key is not: nothing of the file is taken.
            try keys.write("# rotation\n\(Self.oldKey)\ntiny-s3cret\n")
            #expect(
                app.reloadAccess()
                    == .failed(SecretFileError(path: keys.path, line: 3, problem: "holds a key shorter than 16 bytes")))
            #expect(try client.request("GET", new).status == 200)
            #expect(try client.request("GET", old).status == 403)
            // A valid key file beside a broken token file: the keys are not taken either.
            try keys.write("\(Self.oldKey)\n")
            try tokens.write("billing=\n")
            #expect(
                app.reloadAccess()
                    == .failed(
                        SecretFileError(
                            path: tokens.path, line: 1,
                            problem: "has a secret for 'billing' that is not 1 to 256 of letters, digits, '-._~+/='")))
            #expect(try client.request("GET", new).status == 200)
            #expect(try client.request("GET", old).status == 403)
            try FileManager.default.removeItem(atPath: keys.path)
            #expect(
                app.reloadAccess() == .failed(SecretFileError(path: keys.path, line: nil, problem: "cannot be read")))
            #expect(try client.request("GET", new).status == 200)
            #expect(try Self.reloads(client, "failed") == "3")
            #expect(try Self.reloads(client, "ok") == "1")
        }
        #expect(
            log.text.contains(
                "error access not reloaded, the keys and tokens in force stay: \(keys.path):3 holds a key shorter than 16 bytes"
            ), "\(log.text)")
        #expect(log.text.contains("line=3"))
        #expect(!log.text.contains("s3cret"))
        #expect(!log.text.contains(Self.newKey))
        #expect(!log.text.contains(Self.oldKey))
    }

    @Test func aFlagGivenKeyStaysWhateverTheFileBecomes() async throws {
        let directory = StorageTestDirectory()
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/a", with: .ok("a"))
        let keys = try TemporaryFile("\(Self.oldKey)\n")
        let app = try Self.app(
            directory, ["url-signing-key": Self.flagKey, "url-signing-key-file": keys.path], log: LogRecorder())
        try await app.test(.live) { client in
            try keys.write("\(Self.newKey)\n")
            app.reloadAccess()
            #expect(try client.request("GET", Self.signed(origin, "/a", key: Self.flagKey)).status == 200)
            #expect(try client.request("GET", Self.signed(origin, "/a", key: Self.newKey)).status == 200)
            #expect(try client.request("GET", Self.signed(origin, "/a", key: Self.oldKey)).status == 403)
        }
    }

    @Test func aCallerTokenIsAcceptedOnlyAfterTheReloadAndABrokenFileKeepsThoseInForce() async throws {
        let directory = StorageTestDirectory()
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/a", with: .ok("a"))
        let tokens = try TemporaryFile("billing=billing-s3cret-1\n")
        let log = LogRecorder()
        let app = try Self.app(directory, ["fetch-token-file": tokens.path], log: log)
        try await app.test(.live) { client in
            let path = "/fetch?url=" + origin.url("/a").percentEncoded()
            func status(_ token: String) throws -> Int {
                try client.request("GET", path, headers: [("Larder-Token", token)]).status
            }
            #expect(try status("billing-s3cret-1") == 200)
            #expect(try status("reports-s3cret-2") == 403)
            try tokens.write("reports=reports-s3cret-2\n")
            #expect(try status("reports-s3cret-2") == 403, "nothing changes before the reload")
            #expect(
                app.reloadAccess()
                    == .reloaded(
                        "signing keys 0 (unchanged); fetch tokens reports (added reports; removed billing); admin tokens none (unchanged)"
                    ))
            #expect(try status("reports-s3cret-2") == 200)
            #expect(try status("billing-s3cret-1") == 403)
            try tokens.write("reports=reports-s3cret-2\nbilling\n")
            #expect(
                app.reloadAccess()
                    == .failed(SecretFileError(path: tokens.path, line: 2, problem: "is not NAME=SECRET")))
            #expect(try status("reports-s3cret-2") == 200)
            #expect(try status("billing-s3cret-1") == 403)
        }
        #expect(log.text.contains("fetch tokens reports (added reports; removed billing)"), "\(log.text)")
        #expect(!log.text.contains("s3cret"))
    }

    @Test func anEmptyTokenFileLeavesFetchOpenUntilAReloadFillsIt() async throws {
        let directory = StorageTestDirectory()
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/a", with: .ok("a"))
        let tokens = try TemporaryFile("# no caller token yet\n")
        let app = try Self.app(directory, ["fetch-token-file": tokens.path], log: LogRecorder())
        try await app.test(.live) { client in
            let path = "/fetch?url=" + origin.url("/a").percentEncoded()
            #expect(try client.request("GET", path).status == 200)
            try tokens.write("billing=billing-s3cret-1\n")
            app.reloadAccess()
            #expect(try client.request("GET", path).status == 403)
            #expect(try client.request("GET", path, headers: [("Larder-Token", "billing-s3cret-1")]).status == 200)
            try tokens.write("")
            app.reloadAccess()
            #expect(try client.request("GET", path).status == 200)
        }
    }

    @Test func anAdminTokenRotatesInTheFileAndEndsTheSessionsOfTheOldOne() async throws {
        let directory = StorageTestDirectory()
        let tokens = try TemporaryFile("full ops=ops-s3cret-1\n")
        let log = LogRecorder()
        let app = try Self.app(directory, ["admin-tokens-file": tokens.path], log: log)
        try await app.test(.live) { client in
            func status(_ method: String, _ token: String) throws -> Int {
                try client.request(method, "/cache", headers: [("Authorization", "Bearer \(token)")]).status
            }
            let login = try client.request(
                "POST", "/ui/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "token=ops-s3cret-1")
            let cookie = [("Cookie", String(try #require(login.header("Set-Cookie")).prefix { $0 != ";" }))]
            #expect(try client.request("GET", "/cache", headers: cookie).status == 200)
            #expect(try status("GET", "ops-s3cret-1") == 200)
            #expect(try status("GET", "ops-s3cret-2") == 401)
            try tokens.write("full ops=ops-s3cret-2\nread viewer=viewer-s3cret-3\n")
            #expect(try status("GET", "ops-s3cret-2") == 401, "nothing changes before the reload")
            #expect(
                app.reloadAccess()
                    == .reloaded(
                        "signing keys 0 (unchanged); fetch tokens none (unchanged); admin tokens ops (full), viewer (read) (added viewer; changed ops); 1 operator-page session ended"
                    ))
            #expect(try status("GET", "ops-s3cret-1") == 401)
            #expect(try client.request("GET", "/cache", headers: cookie).status == 401)
            #expect(try status("DELETE", "ops-s3cret-2") == 200)
            #expect(try status("GET", "viewer-s3cret-3") == 200)
            #expect(try status("DELETE", "viewer-s3cret-3") == 403)
            try tokens.write("full ops=ops-s3cret-2\nwrite viewer=viewer-s3cret-3\n")
            #expect(
                app.reloadAccess()
                    == .failed(
                        SecretFileError(
                            path: tokens.path, line: 2, problem: "is not 'read NAME=SECRET' or 'full NAME=SECRET'")))
            #expect(try status("DELETE", "ops-s3cret-2") == 200)
            #expect(try status("GET", "viewer-s3cret-3") == 200)
        }
        #expect(!log.text.contains("s3cret"))
    }

    @Test func theSingleAdminTokenFileIsReadAgainToo() async throws {
        let directory = StorageTestDirectory()
        let token = try TemporaryFile("first-admin-s3cret\n")
        let app = try Self.app(directory, ["admin-token-file": token.path], log: LogRecorder())
        try await app.test(.live) { client in
            func status(_ token: String) throws -> Int {
                try client.request("GET", "/fetches", headers: [("Authorization", "Bearer \(token)")]).status
            }
            #expect(try status("first-admin-s3cret") == 200)
            try token.write("second-admin-s3cret\n")
            app.reloadAccess()
            #expect(try status("second-admin-s3cret") == 200)
            #expect(try status("first-admin-s3cret") == 401)
            try token.write("# emptied by mistake\n")
            #expect(
                app.reloadAccess() == .failed(SecretFileError(path: token.path, line: nil, problem: "holds no token")))
            #expect(try status("second-admin-s3cret") == 200)
        }
    }
}

import Foundation
import TestSupport
import Testing

/// `larder fanout`: one admin call reaches every replica; any failed peer fails the command.
@Suite struct FanoutCommandTests {
    private static let token = "fanout-test-token"

    /// Two replicas with the admin token, each holding entries fetched from a loopback stub.
    private func replicas(_ origin: StubOrigin, entries: Int) async throws -> (StorageTestDirectory, [LarderProcess]) {
        let directory = StorageTestDirectory()
        var servers: [LarderProcess] = []
        for name in ["a", "b"] {
            let server = try await LarderProcess.start(
                arguments: ["--allow-network", "127.0.0.0/8", "--admin-token", Self.token],
                database: directory.file("\(name).db"))
            for index in 0..<entries {
                #expect(try server.fetch(origin.url("/\(name)/\(index)")).status == 200)
            }
            servers.append(server)
        }
        return (directory, servers)
    }

    private func listedEntries(_ server: LarderProcess) throws -> Int {
        let response = try server.request("GET", "/cache", headers: ["Authorization: Bearer \(Self.token)"])
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (object?["entries"] as? [Any])?.count ?? -1
    }

    private func cacheableOrigin() throws -> StubOrigin {
        let origin = try StubOrigin()
        for name in ["a", "b"] {
            for index in 0..<3 {
                origin.respond(
                    to: "/\(name)/\(index)", with: .ok("body \(name) \(index)").header("Cache-Control", "max-age=600"))
            }
        }
        return origin
    }

    @Test func purgeFannedOutEmptiesEveryReplica() async throws {
        let origin = try cacheableOrigin()
        defer { origin.stop() }
        let (_, servers) = try await replicas(origin, entries: 3)
        // An entry is committed just after its response is sent: wait for the stores.
        #expect(await waitUntil(timeout: .seconds(5)) { (try? servers.map(listedEntries)) == [3, 3] })
        let peers = servers.map(\.url).joined(separator: ",")
        let result = try await LarderProcess.run([
            "fanout", "--peers", peers, "--token", Self.token, "DELETE", "/cache",
        ])
        #expect(result.status == 0, "\(result.output)")
        for server in servers {
            #expect(result.output.contains("\(server.url)  200  {\"purged\":3}"), "\(result.output)")
        }
        #expect(try servers.map(listedEntries) == [0, 0])
    }

    @Test func tokenComesFromTheEnvironmentAndItsAbsenceFailsEveryPeer() async throws {
        let origin = try cacheableOrigin()
        defer { origin.stop() }
        let (_, servers) = try await replicas(origin, entries: 1)
        let peers = servers.map(\.url).joined(separator: ",")
        let denied = try await LarderProcess.run(["fanout", "--peers", peers, "DELETE", "/cache"])
        #expect(denied.status != 0)
        #expect(denied.output.contains("2 of 2 peers failed"), "\(denied.output)")
        #expect(await waitUntil(timeout: .seconds(5)) { (try? servers.map(listedEntries)) == [1, 1] })
        let allowed = try await LarderProcess.run(
            ["fanout", "--peers", peers, "GET", "/cache?limit=1"], environment: ["LARDER_ADMIN_TOKEN": Self.token])
        #expect(allowed.status == 0, "\(allowed.output)")
        #expect(allowed.output.components(separatedBy: "  200  {\"entries\":").count == 3)
        // The token file serve reads (LARDER_ADMIN_TOKEN_FILE) serves fanout too.
        let directory = StorageTestDirectory()
        let tokenFile = directory.file("admin-token")
        try Data((Self.token + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
        let fromFile = try await LarderProcess.run(
            ["fanout", "--peers", peers, "GET", "/cache?limit=1"], environment: ["LARDER_ADMIN_TOKEN_FILE": tokenFile])
        #expect(fromFile.status == 0, "\(fromFile.output)")
        #expect(fromFile.output.components(separatedBy: "  200  {\"entries\":").count == 3)
    }

    @Test func unreachablePeerFailsTheCommandButTheOthersAreStillCalled() async throws {
        let origin = try cacheableOrigin()
        defer { origin.stop() }
        let (_, servers) = try await replicas(origin, entries: 2)
        #expect(await waitUntil(timeout: .seconds(5)) { (try? listedEntries(servers[0])) == 2 })
        let dead = servers[1].url
        servers[1].stop()
        let result = try await LarderProcess.run(
            [
                "fanout", "--peers", "\(servers[0].url),\(dead)", "--token", Self.token, "--timeout", "2", "DELETE",
                "/cache",
            ])
        #expect(result.status != 0)
        #expect(result.output.contains("\(dead)  ---  cannot connect"), "\(result.output)")
        #expect(result.output.contains("1 of 2 peers failed"))
        #expect(try listedEntries(servers[0]) == 0)
    }

    @Test func filterChainIsReplacedOnEveryReplicaFromAFile() async throws {
        let origin = try cacheableOrigin()
        defer { origin.stop() }
        let (directory, servers) = try await replicas(origin, entries: 0)
        let chain = #"[{"name": "no-store", "match": {"hosts": ["*"]}, "action": "bypass"}]"#
        let file = directory.file("chain.json")
        _ = FileManager.default.createFile(atPath: file, contents: Data(chain.utf8))
        let peers = servers.map(\.url).joined(separator: ",")
        let result = try await LarderProcess.run(
            ["fanout", "--peers", peers, "--token", Self.token, "--data", "@\(file)", "PUT", "/filters"])
        #expect(result.status == 0, "\(result.output)")
        for server in servers {
            let listing = try server.request("GET", "/filters", headers: ["Authorization: Bearer \(Self.token)"])
            #expect(listing.text.contains("\"no-store\""), "\(listing.text)")
        }
    }

    /// An https peer behind a private CA answers with `--ca-file`; an http replica beside it too
    /// (`openssl s_server -www` answers 200 to any GET).
    @Test func httpsPeerIsReachedWithItsCAFile() async throws {
        let certificates = try TLSTestCertificates()
        let secure = try TLSTestOrigin(certificates: certificates)
        let plain = try StubOrigin()
        defer { plain.stop() }
        plain.respond(to: "/cache?limit=1", with: .ok(#"{"entries":[]}"#))
        let peers = "\(secure.url("")),\(plain.url(""))"
        let result = try await LarderProcess.run(
            ["fanout", "--peers", peers, "--ca-file", certificates.caFile, "GET", "/cache?limit=1"])
        #expect(result.status == 0, "\(result.output)")
        // Peers are padded to one width: the shorter http URL gets one more space.
        #expect(result.output.contains("\(secure.url(""))  200  <HTML>"), "\(result.output)")
        #expect(result.output.contains("\(plain.url(""))   200  {\"entries\":[]}"), "\(result.output)")
        let untrusted = try await LarderProcess.run(["fanout", "--peers", peers, "GET", "/cache?limit=1"])
        #expect(untrusted.status != 0)
        #expect(untrusted.output.contains("1 of 2 peers failed"), "\(untrusted.output)")
    }

    @Test(arguments: [["GET", "cache"], ["G ET", "/cache"]])
    func badCallIsRefusedBeforeAnyPeerIsAsked(_ call: [String]) async throws {
        let result = try await LarderProcess.run(["fanout", "--peers", "http://127.0.0.1:1"] + call)
        #expect(result.status != 0)
        #expect(!result.output.contains("cannot connect"), "\(result.output)")
    }
}

import Foundation
import Storage
import TestSupport
import Testing

/// `larder backup`: a copy taken while the server stores entries opens, passes integrity_check, and
/// a server started on it serves the same bodies. Restore is stop, copy back, start.
@Suite struct BackupCommandTests {
    private func cacheableOrigin(paths: Int) throws -> StubOrigin {
        let origin = try StubOrigin()
        for index in 0..<paths {
            let body = String(repeating: "entry \(index) ", count: 200 + index * 50)
            origin.respond(to: "/e/\(index)", with: .ok(body).header("Cache-Control", "max-age=600"))
        }
        return origin
    }

    @Test func backupDuringWritesOpensPassesIntegrityCheckAndServesTheSameBodies() async throws {
        let origin = try cacheableOrigin(paths: 200)
        defer { origin.stop() }
        let directory = StorageTestDirectory()
        let server = try await LarderProcess.start(
            arguments: ["--allow-network", "127.0.0.0/8"], database: directory.file("live.db"))
        var keys: [Int: String] = [:]
        for index in 0..<20 {
            let response = try server.fetch(origin.url("/e/\(index)"))
            #expect(response.status == 200)
            keys[index] = response.header("X-Cache-Key")
        }
        // An entry is committed just after its response is sent: wait for the first twenty.
        #expect(
            await waitUntil(timeout: .seconds(5)) {
                ((try? CacheDatabaseSummary.read(path: server.databasePath).entries) ?? 0) >= 20
            })
        // More entries arrive while the backup runs.
        let port = server.port
        let writer = BackgroundLoop { step in
            let index = 20 + step
            guard index < 200, let client = try? RawSocketClient(port: port) else { return false }
            let url = origin.url("/e/\(index)").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            try? client.send("GET /fetch?url=\(url) HTTP/1.1\r\nHost: test\r\n\r\n")
            _ = try? client.readResponse()
            return true
        }
        #expect(await waitUntil(timeout: .seconds(10)) { writer.iterations >= 2 })
        let backup = directory.file("backup.db")
        let result = try await LarderProcess.run(["backup", backup, "--db", server.databasePath])
        let written = await writer.stop()
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("integrity_check ok"))
        #expect(written >= 2)
        // Not a terminal: no progress lines.
        #expect(!result.output.contains("%"))
        #expect(try SQLiteBackup.integrityProblems(path: backup).isEmpty)
        #expect(try CacheDatabaseSummary.read(path: backup).entries >= 20)

        let restored = try await LarderProcess.start(database: backup)
        for index in 0..<20 {
            let key = try #require(keys[index])
            let original = try server.request("GET", "/cache/\(key)")
            let copy = try restored.request("GET", "/cache/\(key)")
            #expect(copy.status == 200)
            #expect(sameBytes(copy.body, original.body))
            #expect(copy.body.count > 1000)
        }
    }

    @Test func existingBackupIsKeptWithoutForceAndReplacedWithIt() async throws {
        let origin = try cacheableOrigin(paths: 3)
        defer { origin.stop() }
        let directory = StorageTestDirectory()
        let server = try await LarderProcess.start(
            arguments: ["--allow-network", "127.0.0.0/8"], database: directory.file("live.db"))
        #expect(try server.fetch(origin.url("/e/0")).status == 200)
        #expect(
            await waitUntil(timeout: .seconds(5)) {
                (try? CacheDatabaseSummary.read(path: server.databasePath).entries) == 1
            })
        let backup = directory.file("backup.db")
        _ = FileManager.default.createFile(atPath: backup, contents: Data("an older file".utf8))
        let refused = try await LarderProcess.run(["backup", backup], environment: ["LARDER_DB": server.databasePath])
        #expect(refused.status != 0)
        #expect(refused.output.contains("--force"), "\(refused.output)")
        #expect(FileManager.default.contents(atPath: backup) == Data("an older file".utf8))
        let forced = try await LarderProcess.run(
            ["backup", backup, "--force"], environment: ["LARDER_DB": server.databasePath])
        #expect(forced.status == 0, "\(forced.output)")
        #expect(try CacheDatabaseSummary.read(path: backup).entries == 1)
    }

    @Test func missingDatabaseFailsAndWritesNothing() async throws {
        let directory = StorageTestDirectory()
        let result = try await LarderProcess.run([
            "backup", directory.file("out.db"), "--db", directory.file("none.db"),
        ])
        #expect(result.status != 0)
        #expect(result.output.contains("no cache database at \(directory.file("none.db")) (given by --db)"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.db")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("none.db")))
    }
}

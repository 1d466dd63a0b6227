import Foundation
import Storage
import TestSupport
import Testing

/// `larder stats`: read from the database file while the server writes, labelled hit ratio.
@Suite struct StatsCommandTests {
    @Test func statsOfALiveServerCountEntriesHostsAndSize() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        for index in 0..<4 {
            origin.respond(
                to: "/s/\(index)", with: .ok(String(repeating: "x", count: 5000)).header("Cache-Control", "max-age=600")
            )
        }
        let directory = StorageTestDirectory()
        let server = try await LarderProcess.start(
            arguments: ["--allow-network", "127.0.0.0/8"], database: directory.file("live.db"))
        for index in 0..<4 { #expect(try server.fetch(origin.url("/s/\(index)")).status == 200) }
        // An entry is committed just after its response is sent.
        #expect(
            await waitUntil(timeout: .seconds(5)) {
                (try? CacheDatabaseSummary.read(path: server.databasePath).entries) == 4
            })
        let result = try await LarderProcess.run(["stats", "--db", server.databasePath, "--max-size", "1M"])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("entries    4"), "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("stored     ") && $0.contains("of 1.0 MiB max") })
        // The server batches hits in memory, so the count may lag; the label says what is counted.
        #expect(
            lines.contains {
                $0.hasPrefix("hit ratio  ") && $0.contains("recorded hits / (hits + 4 stores)")
                    && $0.contains("entries still stored only")
            }, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("  127.0.0.1") && $0.contains("4 entries") })
        #expect(lines.contains { $0.hasPrefix("bodies     19.5 KiB") })
    }

    @Test(arguments: ["missing.db", "garbage.db"])
    func fileThatIsNoCacheFailsWithOneLine(_ name: String) async throws {
        let directory = StorageTestDirectory()
        if name == "garbage.db" {
            _ = FileManager.default.createFile(
                atPath: directory.file(name), contents: Data(repeating: 0x42, count: 4096))
        }
        let result = try await LarderProcess.run(["stats", "--db", directory.file(name)])
        #expect(result.status != 0)
        #expect(result.output.hasPrefix("larder stats: "))
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing.db")))
        if name == "missing.db" {
            #expect(result.output.contains("no cache database at \(directory.file(name)) (given by --db)"))
        }
    }

    /// Without `--db`, the message says where the path came from (SQLite's own was "error 14").
    @Test(arguments: ["stats", "backup"])
    func missingDatabaseNamesWhereItsPathCameFrom(_ command: String) async throws {
        let directory = StorageTestDirectory()
        let arguments = command == "backup" ? [command, directory.file("copy.db")] : [command]
        let fromEnvironment = try await LarderProcess.run(
            arguments, environment: ["LARDER_DB": directory.file("no.db")])
        #expect(fromEnvironment.status != 0)
        #expect(
            fromEnvironment.output
                == "larder \(command): no cache database at \(directory.file("no.db")) (from LARDER_DB); it is the file `larder serve --db` writes\n"
        )
        #expect(!fromEnvironment.output.contains("error 14"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("copy.db")))
    }
}

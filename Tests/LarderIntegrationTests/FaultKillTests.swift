import Foundation
import HTTPCore
import Synchronization
import TestSupport
import Testing

/// `kill -9` of a real `larder serve` while it stores a stream of misses: after each kill the database
/// passes `PRAGMA integrity_check`, a restarted process serves every entry it kept with exactly the
/// origin's bytes, and nothing half-written is served.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["LARDER_HEAVY_TESTS"] != nil))
struct FaultKillTests {
    static let rounds = 2
    static let writers = 3
    static let maxEntriesPerRound = 40

    /// The body the stub origin serves for `/obj/<n>`: its length and bytes follow from `n`.
    static func body(_ index: Int) -> [UInt8] {
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<(2_000 + (index * 7919) % 60_000)).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    @Test func killedUnderWriteLoadRestartsWithASoundDatabaseAndOnlyCorrectBodies() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(to: "/obj") { request in
            let index = Int(request.target.split(separator: "=").last ?? "") ?? 0
            return StubOriginResponse.ok(bytes: Self.body(index)).header("Cache-Control", "max-age=3600")
                .trickled(chunkSize: 8192)
        }
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("larder-kill-\(UUID()).db").path
        defer {
            for suffix in ["", "-wal", "-shm", "-unsynced"] {
                try? FileManager.default.removeItem(atPath: database + suffix)
            }
        }
        var checked = 0
        for round in 0..<Self.rounds {
            let larder = try await LarderProcess.start(arguments: Self.serveArguments, database: database)
            defer { larder.stop() }
            let port = larder.port
            // Writers fetch unique URLs (misses, each stored) until the kill cuts them off.
            let stop = Atomic<Bool>(false)
            let served = Atomic<Int>(0)
            let next = Atomic<Int>(round * 100_000)
            let finished = Atomic<Int>(0)
            for _ in 0..<Self.writers {
                DispatchQueue.global().async {
                    defer { finished.add(1, ordering: .relaxed) }
                    while !stop.load(ordering: .relaxed) {
                        let index = next.add(1, ordering: .relaxed).newValue
                        // Bounded, so that checking every entry afterwards stays quick.
                        if index > round * 100_000 + Self.maxEntriesPerRound { break }
                        let url = origin.url("/obj?n=\(index)")
                        guard let response = try? Self.get(port: port, "/fetch?url=" + url.percentEncoded())
                        else {
                            continue
                        }
                        if response.status == 200 && response.body == Self.body(index) {
                            served.add(1, ordering: .relaxed)
                        }
                    }
                }
            }
            #expect(await waitUntil(timeout: .seconds(20)) { served.load(ordering: .relaxed) >= 15 })
            try await Task.sleep(for: .milliseconds(Int64(100 + round * 150)))
            larder.killAbruptly()
            stop.store(true, ordering: .relaxed)
            // Waited for with a poll, not a blocking wait: the test's own thread must stay free.
            #expect(await waitUntil(timeout: .seconds(30)) { finished.load(ordering: .relaxed) == Self.writers })

            #expect(try Self.sqlite(database, "PRAGMA integrity_check;") == "ok", "round \(round)")

            let restarted = try await LarderProcess.start(arguments: Self.serveArguments, database: database)
            defer { restarted.stop() }
            #expect(try restarted.request("GET", "/healthz").status == 200)
            var cursor: String?
            var entries = 0
            repeat {
                let page = try restarted.request(
                    "GET",
                    "/cache?limit=500" + (cursor.map { "&cursor=" + ($0).percentEncoded() } ?? ""))
                let json = try #require(try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])
                for entry in json["entries"] as? [[String: Any]] ?? [] {
                    let key = try #require(entry["key"] as? String)
                    let url = try #require(entry["url"] as? String)
                    let index = try #require(Int(url.split(separator: "=").last ?? ""))
                    let stored = try restarted.request("GET", "/cache/\(key)")
                    #expect(stored.status == 200)
                    #expect(stored.body == Self.body(index), "round \(round): \(url) serves other bytes")
                    let hit = try restarted.request("GET", "/fetch?url=" + url.percentEncoded())
                    #expect(hit.header("X-Cache") == "HIT", "round \(round): \(url)")
                    #expect(hit.body == Self.body(index), "round \(round): \(url) serves other bytes")
                    entries += 1
                }
                cursor = json["nextCursor"] as? String
            } while cursor != nil
            // The work before the kill was kept (a body is committed just after its last byte is served,
            // so the last few served may be lost; most are not).
            #expect(entries >= 10, "round \(round): what was stored before the kill was kept")
            checked += entries
            restarted.killAbruptly()
        }
        #expect(checked > 0)
    }

    /// The server's flags: loopback origins allowed, a quiet log, a short drain.
    static let serveArguments = ["--allow-network", "127.0.0.0/8", "--access-log", "false", "--shutdown-grace", "1"]

    /// One GET on a new connection; the writer threads share only the port, not the process object.
    static func get(port: Int, _ path: String) throws -> RawHTTPResponse {
        try RawSocketClient.exchange(port: port, "GET", path, timeout: 10)
    }

    /// Runs the `sqlite3` shell on a database and returns its trimmed output.
    static func sqlite(_ database: String, _ sql: String) throws -> String {
        let process = try ChildProcess("/usr/bin/sqlite3", [database, sql], standardOutput: .pipe)
        let data = process.communicate().output
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

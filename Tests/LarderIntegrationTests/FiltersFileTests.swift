import Foundation
import Storage
import TestSupport
import Testing

/// `--filters-file` with `--filters-mode seed` (a new database only) and `replace` (the file is the chain
/// at every start, the API answers 409), and an invalid file refusing the start with the field's path.
@Suite struct FiltersFileTests {
    static let jsonOnly = #"{"filters":[{"name":"json-only","match":{"extensions":["json"]},"ttl":60}]}"#
    static let twoFilters =
        #"[{"name":"no-tracking","match":{},"dropParams":["utm_*"]},{"name":"pngs","match":{"extensions":["png"]}}]"#

    static func chain(_ larder: LarderProcess) throws -> (names: [String], version: String?) {
        let response = try larder.request("GET", "/filters")
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
        let names = ((object["filters"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        return (names, response.header("ETag"))
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func seedFillsANewDatabaseAndLeavesAnExistingOneAlone() async throws {
        let directory = StorageTestDirectory()
        let file = directory.file("filters.json")
        try Self.write(Self.jsonOnly, to: file)
        let database = directory.file("seeded.db")
        var larder = try await LarderProcess.start(arguments: ["--filters-file", file], database: database)
        #expect(try Self.chain(larder) == (["json-only"], "\"1\""))
        // Seeded, the API owns the chain.
        let added = try larder.request(
            "PUT", "/filters/pngs", headers: ["Content-Type: application/json"], body: #"{"match":{}}"#)
        #expect(added.status == 201)
        larder.stop()

        try Self.write(Self.twoFilters, to: file)
        larder = try await LarderProcess.start(
            arguments: ["--filters-file", file], environment: ["LARDER_FILTERS_MODE": "seed"], database: database)
        defer { larder.stop() }
        #expect(try Self.chain(larder) == (["json-only", "pngs"], "\"2\""))
    }

    @Test func replaceMakesTheFileTheChainAtEveryStartAndRefusesChangesWith409() async throws {
        let directory = StorageTestDirectory()
        let file = directory.file("filters.json")
        let database = directory.file("owned.db")
        var larder = try await LarderProcess.start(database: database)
        #expect(try Self.chain(larder) == (["images", "images-read-only"], "\"1\""))
        larder.stop()

        try Self.write(Self.jsonOnly, to: file)
        let arguments = ["--filters-file", file, "--filters-mode", "replace"]
        larder = try await LarderProcess.start(arguments: arguments, database: database)
        #expect(try Self.chain(larder) == (["json-only"], "\"2\""))
        let changes: [(String, String, String?)] = [
            ("PUT", "/filters", Self.twoFilters), ("POST", "/filters", #"{"name":"x","match":{}}"#),
            ("DELETE", "/filters", nil), ("PUT", "/filters/x", #"{"match":{}}"#), ("DELETE", "/filters/json-only", nil),
            ("POST", "/filters/defaults", nil),
        ]
        for (method, path, body) in changes {
            let refused = try larder.request(
                method, path, headers: body == nil ? [] : ["Content-Type: application/json"], body: body)
            #expect(refused.status == 409, "\(method) \(path)")
            #expect(refused.header("Content-Type") == "application/problem+json")
            #expect(refused.text.contains(#""type":"https://larder.dev/problems/filters-owned-by-file""#))
            #expect(refused.text.contains(file), "\(refused.text)")
        }
        #expect(try larder.request("GET", "/filters/json-only").status == 200)
        #expect(try Self.chain(larder) == (["json-only"], "\"2\""))
        larder.stop()

        // The same file again changes nothing (no new version); another file takes over.
        larder = try await LarderProcess.start(arguments: arguments, database: database)
        #expect(try Self.chain(larder) == (["json-only"], "\"2\""))
        larder.stop()
        try Self.write(Self.twoFilters, to: file)
        larder = try await LarderProcess.start(arguments: arguments, database: database)
        defer { larder.stop() }
        #expect(try Self.chain(larder) == (["no-tracking", "pngs"], "\"3\""))
    }

    @Test(arguments: [
        (
            #"{"filters":[{"name":"a","match":{"hosts":[3]}}]}"#,
            "filters[0].match.hosts[0]: must be a string, not a number"
        ),
        (#"[{"name":"a","match":{}},{"name":"a","match":{}}]"#, "filters[1].name: duplicate name"),
        (#"{"filters":[{"name":"a","match":{},"colour":1}]}"#, "filters[0].colour"),
        ("not json", "$"),
    ])
    func anInvalidFileStopsTheStartNamingTheField(text: String, expected: String) async throws {
        let directory = StorageTestDirectory()
        let file = directory.file("filters.json")
        try Self.write(text, to: file)
        for mode in ["seed", "replace"] {
            let result = try await LarderProcess.run([
                "serve", "--host", "127.0.0.1", "--port", "0", "--db", directory.file("never.db"), "--filters-file",
                file,
                "--filters-mode", mode,
            ])
            #expect(result.status != 0)
            #expect(result.output.contains("--filters-file \(file): \(expected)"), "\(result.output)")
            #expect(!result.output.contains("listening on"))
            #expect(!FileManager.default.fileExists(atPath: directory.file("never.db")), "no database is created")
        }
    }

    @Test func aMissingFileStopsTheStart() async throws {
        let directory = StorageTestDirectory()
        let result = try await LarderProcess.run([
            "serve", "--host", "127.0.0.1", "--port", "0", "--db", directory.file("never.db"), "--filters-file",
            directory.file("absent.json"),
        ])
        #expect(result.status != 0)
        #expect(result.output.contains("--filters-file \(directory.file("absent.json")): cannot be read"))
    }
}

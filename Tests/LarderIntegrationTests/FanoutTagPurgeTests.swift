import Foundation
import TestSupport
import Testing

/// A tag purge behind a consistent-hash balancer: each URL lives on one replica, a tag spans them, and
/// `larder fanout` sends the purge to all three (docs/OPERATIONS.md, "Purging every replica").
@Suite struct FanoutTagPurgeTests {
    @Test func aTagPurgeFannedOutRemovesTheTagOnEveryReplicaAndNothingElse() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        for index in 0..<9 {
            let tags = index < 3 ? "product-42 catalog" : "catalog"
            origin.respond(
                to: "/item/\(index)",
                with: .ok("item \(index)").header("Cache-Control", "max-age=600").header("Surrogate-Key", tags))
        }
        let directory = StorageTestDirectory()
        var replicas: [LarderProcess] = []
        for name in ["a", "b", "c"] {
            replicas.append(
                try await LarderProcess.start(
                    arguments: ["--allow-network", "127.0.0.0/8"], database: directory.file("\(name).db")))
        }
        // The balancer's job: item i always on replica i % 3, so each replica holds one product-42 item.
        for index in 0..<9 {
            #expect(try replicas[index % 3].fetch(origin.url("/item/\(index)")).status == 200)
        }
        func listed(_ replica: LarderProcess, _ query: String) throws -> Int {
            let response = try replica.request("GET", "/cache?" + query)
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            return (object?["entries"] as? [Any])?.count ?? -1
        }
        #expect(
            await waitUntil(timeout: .seconds(10)) {
                (try? replicas.map { try listed($0, "tag=catalog") }) == [3, 3, 3]
            })
        let peers = replicas.map(\.url).joined(separator: ",")
        let result = try await LarderProcess.run(["fanout", "--peers", peers, "DELETE", "/cache?tag=product-42"])
        #expect(result.status == 0, "\(result.output)")
        for replica in replicas {
            #expect(result.output.contains("\(replica.url)  200  {\"purged\":1}"), "\(result.output)")
        }
        #expect(try replicas.map { try listed($0, "tag=product-42") } == [0, 0, 0])
        #expect(try replicas.map { try listed($0, "tag=catalog") } == [2, 2, 2])
        // The purged item is fetched again from the origin; the others are still hits.
        #expect(
            try replicas[0].fetch(origin.url("/item/0")).headers.contains { $0.name == "X-Cache" && $0.value == "MISS" }
        )
        #expect(
            try replicas[1].fetch(origin.url("/item/4")).headers.contains { $0.name == "X-Cache" && $0.value == "HIT" })
    }
}

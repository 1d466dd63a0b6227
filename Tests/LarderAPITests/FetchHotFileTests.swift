import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import HTTPServer
import TestSupport
import Testing

@testable import LarderAPI

/// Hot bodies from `HotEntry.fileThreshold` bytes on are held in an in-memory file and sent with
/// `sendfile`; smaller ones stay bytes. Either way a memory hit must carry the exact body, and HEAD its
/// length without content. The entry is deleted from SQLite behind the service, so only memory can say HIT.
@Suite struct FetchHotFileTests {
    @Test(arguments: [1_000, HotEntry.fileThreshold - 1, HotEntry.fileThreshold, 300_000, 3_000_001])
    func memoryHitsCarryTheExactBodyWhereverItIsHeld(size: Int) async throws {
        let body = CacheCoreFixtures.randomBody(length: size)
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/f", with: .ok(bytes: body).header("Cache-Control", "max-age=60"))
            #expect(try sameBytes(harness.fetch("/f").body, body))
            #expect(await harness.settle())
            #expect(try harness.fetch("/f").header("X-Cache") == "HIT")
            try FetchHotTierTests.deleteBehindTheService(harness, "/f")
            for _ in 0..<2 {
                let hit = try harness.fetch("/f")
                #expect(hit.header("X-Cache") == "HIT")
                #expect(hit.header("Content-Length") == String(size))
                #expect(sameBytes(hit.body, body))
            }
            let head = try harness.fetch("/f", method: "HEAD")
            #expect(head.header("X-Cache") == "HIT")
            #expect(head.header("Content-Length") == String(size))
            #expect(head.body.isEmpty)
        }
    }

    @Test(arguments: [(HotEntry.fileThreshold - 1, false), (HotEntry.fileThreshold, true), (1 << 20, true)])
    func theBodyMovesToAFileFromTheThresholdOn(size: Int, inFile: Bool) throws {
        let body = CacheCoreFixtures.randomBody(length: size)
        let entry = HotEntry(
            stored: CacheCoreFixtures.makeEntry(url: "https://example.com/f"),
            facts: CacheCoreFixtures.makeEntry(url: "https://example.com/f").facts(targets: .standard), body: body,
            headers: HTTPHeaders())
        #expect(entry.bodyCount == size)
        #expect(entry.cost >= size)
        #expect((entry.file != nil) == inFile)
        #expect(entry.body.isEmpty == inFile)
        if let file = entry.file {
            // The file holds exactly the body.
            var copy = [UInt8](repeating: 0, count: size + 1)
            let read = copy.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, size + 1, 0) }
            #expect(read == size)
            #expect(sameBytes(Array(copy.prefix(size)), body))
        }
    }
}

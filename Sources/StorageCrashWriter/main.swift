// A child process for the storage crash test (Tests/StorageTests/CrashTests.swift): it writes,
// replaces, abandons and deletes entries in a loop until it is killed with SIGKILL. Every body follows
// from its index (`CacheCoreFixtures.crashBody`), so the checker knows what each entry must hold.
// Not part of the product.
import CacheCore
import Foundation
import Storage
import TestSupport

let arguments = CommandLine.arguments
guard arguments.count == 5, let seed = UInt64(arguments[2]), let chunkSize = Int(arguments[3]),
    let sync = StoreSync(rawValue: arguments[4])
else {
    FileHandle.standardError.write(
        Data("usage: StorageCrashWriter <database> <seed> <chunk size> <off|checkpoint>\n".utf8))
    exit(2)
}

do {
    var configuration = SQLiteCacheStore.Configuration(
        path: arguments[1], maxSize: 64 * chunkSize * 4, chunkSize: chunkSize)
    configuration.sync = sync
    let store = try SQLiteCacheStore(configuration: configuration)
    var random = SplitMix64(seed: seed)
    var step = 0
    while true {
        step += 1
        let index = Int(random.next() % 400)
        let url = CacheCoreFixtures.crashURL(index: index)
        switch random.next() % 10 {
        case 0:
            try store.delete(CacheKey.make(canonicalURL: url))
        case 1:
            // Abandoned half-way: must leave nothing behind.
            let writer = try store.beginWrite(hints: CacheBodyHints())
            try writer.append(CacheCoreFixtures.randomBody(length: 2 * chunkSize + 1))
            writer.abandon()
        default:
            let body = CacheCoreFixtures.crashBody(index: index, chunkSize: chunkSize)
            let entry = CacheCoreFixtures.makeEntry(
                url: url, contentType: index % 2 == 0 ? "text/plain" : "application/octet-stream")
            let writer = try store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
            var offset = 0
            while offset < body.count {
                let end = min(offset + 1000 + Int(random.next() % 3000), body.count)
                try writer.append(Array(body[offset..<end]))
                offset = end
            }
            try writer.commit(entry)
        }
        if step % 50 == 0 { try store.sweep(now: CacheCoreFixtures.epoch) }
        if step == 20 { FileHandle.standardOutput.write(Data("ready\n".utf8)) }
    }
} catch {
    FileHandle.standardError.write(Data("StorageCrashWriter: \(error)\n".utf8))
    exit(1)
}

// Purge benchmark (a script, not a test): a tag purge of 10 000 entries among 1 000 000, timed, while one
// thread serves 1 KiB hits (lookup and body read) from the store and another stores misses; then the
// reclaim of the purged entries behind it, timed the same way. Run through Benchmarks/purge/run.sh, which
// builds it in release mode.
import CacheCore
import Dispatch
import Foundation
import Storage
import Synchronization
import TestSupport

struct Options {
    var path = NSTemporaryDirectory() + "larder-purge-bench/store.db"
    var entries = 1_000_000
    var tagged = 10_000
    var window = 3.0
    var reuse = false
    /// Load the store and stop (Benchmarks/million uses the loaded file).
    var loadOnly = false
    /// Each entry's body (random bytes, at most one 64 KiB chunk: `bulkLoad` writes one chunk a body).
    var bodyBytes = 1024

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--db": path = iterator.next()!
            case "--entries": entries = Int(iterator.next()!)!
            case "--tagged": tagged = Int(iterator.next()!)!
            case "--window": window = Double(iterator.next()!)!
            case "--reuse": reuse = true
            case "--load-only": loadOnly = true
            case "--body-bytes":
                bodyBytes = Int(iterator.next()!)!
                precondition((0...65536).contains(bodyBytes), "--body-bytes must be 0...65536")
            default: fatalError("unknown argument \(argument)")
            }
        }
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Every `entries / tagged`-th entry carries the tag `sale`; all carry none else.
func entry(_ index: Int, tagged: Int, entries: Int) -> StoredEntry {
    var entry = CacheCoreFixtures.makeEntry(
        url: "https://bench.example/items/\(index)", contentType: "application/octet-stream",
        extraHeaders: [("Cache-Control", "max-age=3600")])
    if index < entries, index % (entries / tagged) == 0 { entry.tags = ["sale"] }
    return entry
}

let options = Options(CommandLine.arguments)
let clock = ContinuousClock()
let body = CacheCoreFixtures.randomBody(length: options.bodyBytes)
try FileManager.default.createDirectory(
    atPath: (options.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
if !options.reuse {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: options.path + suffix) }
}
let store = try SQLiteCacheStore(path: options.path)
if try store.stats().entryCount < options.entries {
    let started = clock.now
    try store.bulkLoad(
        (0..<options.entries).lazy.map { (entry($0, tagged: options.tagged, entries: options.entries), body) })
    try store.checkpoint()
    print(
        "loaded \(options.entries) entries (\(options.tagged) tagged sale) in \(String(format: "%.1f", seconds(clock.now - started))) s"
    )
} else {
    // --reuse: a previous run purged the tagged entries; store them again.
    let step = options.entries / options.tagged
    try store.bulkLoad(
        stride(from: 0, to: options.entries, by: step).lazy.map {
            (entry($0, tagged: options.tagged, entries: options.entries), body)
        })
    try store.checkpoint()
}

if options.loadOnly { exit(0) }

/// Counts work done by a background loop, until told to stop.
final class Load: Sendable {
    let count = Atomic<Int>(0)
    let running = Atomic<Bool>(true)
    func stop() { running.store(false, ordering: .relaxed) }
}

let loadAverage = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ")
    .prefix(3).joined(separator: " ")
let hits = Load()
let misses = Load()
let hitThread = Thread {
    var random = SplitMix64(seed: 7)
    while hits.running.load(ordering: .relaxed) {
        let index = Int(random.next() % UInt64(options.entries))
        // Untagged entries only, so that every lookup finds its entry before, during and after the purge.
        guard index % (options.entries / options.tagged) != 0 else { continue }
        let key = CacheKey.make(canonicalURL: "https://bench.example/items/\(index)")
        guard let found = try? store.entry(for: key), let reader = try? store.openBody(of: found, form: .identity)
        else { fatalError("hit \(index) missing") }
        while (try? reader.next()) ?? nil != nil {}
        hits.count.add(1, ordering: .relaxed)
    }
}
let missThread = Thread {
    var index = options.entries
    while misses.running.load(ordering: .relaxed) {
        let writer = try! store.beginWrite(hints: CacheBodyHints(contentType: "application/octet-stream"))
        try! writer.append(body)
        try! writer.commit(entry(index, tagged: options.tagged, entries: options.entries))
        misses.count.add(1, ordering: .relaxed)
        index += 1
    }
}
hitThread.start()
missThread.start()

/// Rates of both loads over `window` seconds, or over `body` when given.
func measure(_ body: (() throws -> Void)? = nil) throws -> (hits: Double, misses: Double, elapsed: Double) {
    let (hit0, miss0) = (hits.count.load(ordering: .relaxed), misses.count.load(ordering: .relaxed))
    let started = clock.now
    if let body { try body() } else { Thread.sleep(forTimeInterval: options.window) }
    let elapsed = seconds(clock.now - started)
    return (
        Double(hits.count.load(ordering: .relaxed) - hit0) / elapsed,
        Double(misses.count.load(ordering: .relaxed) - miss0) / elapsed, elapsed
    )
}

Thread.sleep(forTimeInterval: 1)  // warm up
let before = try measure()
let transactions = store.purgeTransactionCount
var purged = 0
var purgeCPU = 0.0
let during = try measure {
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
    purged = try store.purge(.tags(["sale"]))
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
    purgeCPU = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
}
let purgeTransactions = store.purgeTransactionCount - transactions
// The reclaimer deletes what the purge recorded, in the background: until the store counts none left.
let reclaimTransactions = store.reclaimTransactionCount
let reclaim = try measure {
    while try store.stats().reclaimingEntries > 0 { Thread.sleep(forTimeInterval: 0.01) }
}
let after = try measure()
hits.stop()
misses.stop()
Thread.sleep(forTimeInterval: 0.2)

print("| | hits/s (1 KiB, lookup + read) | misses stored/s |")
print("|---|---:|---:|")
print(String(format: "| before the purge (%.0f s) | %.0f | %.0f |", options.window, before.hits, before.misses))
print(String(format: "| during the purge (%.2f s) | %.0f | %.0f |", during.elapsed, during.hits, during.misses))
print(String(format: "| during the reclaim (%.2f s) | %.0f | %.0f |", reclaim.elapsed, reclaim.hits, reclaim.misses))
print(String(format: "| after the purge (%.0f s) | %.0f | %.0f |", options.window, after.hits, after.misses))
print(
    String(
        format: "purged %d entries tagged sale among %d in %.2f s (%.2f s of the purging thread's CPU), "
            + "%d transactions (the largest %d rows); hits during / before: %.2f; misses stored during the purge: "
            + "%.0f/s, during / before: %.2f; load average at the start: %@",
        purged, options.entries, during.elapsed, purgeCPU, purgeTransactions, store.purgeLargestTransactionRows,
        during.hits / before.hits, during.misses, during.misses / before.misses, loadAverage))
print(
    String(
        format: "reclaimed in the background in %.2f s, %d transactions (the largest %d rows); hits during / before: "
            + "%.2f; misses during / before: %.2f",
        reclaim.elapsed, store.reclaimTransactionCount - reclaimTransactions, store.reclaimLargestTransactionRows,
        reclaim.hits / before.hits, reclaim.misses / before.misses))
let largest = max(store.purgeLargestTransactionRows, store.reclaimLargestTransactionRows)
let ok =
    purged == options.tagged && during.elapsed <= 2 && during.hits >= 0.8 * before.hits && during.misses > 0
    && reclaim.hits >= 0.8 * before.hits && reclaim.misses > 0 && largest <= SQLiteCacheStore.purgeBatchSize
print(
    ok
        ? "PASS: ≤ 2 s, transactions ≤ \(SQLiteCacheStore.purgeBatchSize) rows, hits ≥ 0.8×, misses stored (purge and reclaim)"
        : "FAIL: see the figures above")
exit(ok ? 0 : 1)

// Storage benchmark (a script, not a test): puts and gets per second at two store sizes, bytes on
// disk per entry, and the compression ratio of chunked deflate against `gzip -6` for several chunk
// sizes. Run through Benchmarks/storage/run.sh, which builds it in release mode.
import CacheCore
import Foundation
import Storage
import TestSupport

struct Options {
    var directory = NSTemporaryDirectory() + "larder-storage-bench"
    var entryCounts = [1_000, 1_000_000]
    var gets = 200_000
    var bodySize = 100
    var samples: [(name: String, path: String)] = []
    var reuse = false
    /// Look up only the first N entries (0: all): the same database with a small working set.
    var keySpace = 0
    /// Warm up by looking up every entry once (a long-running server's steady state: every page of the
    /// memory-mapped file faulted in) instead of one pass of `gets` random lookups.
    var warmAll = false
    var chunkSizes = [16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10]

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--dir": directory = iterator.next()!
            case "--entries": entryCounts = iterator.next()!.split(separator: ",").map { Int($0)! }
            case "--reuse": reuse = true
            case "--key-space": keySpace = Int(iterator.next()!)!
            case "--warm-all": warmAll = true
            case "--gets": gets = Int(iterator.next()!)!
            case "--body-size": bodySize = Int(iterator.next()!)!
            case "--sample":
                let spec = iterator.next()!.split(separator: "=", maxSplits: 1).map(String.init)
                samples.append((spec[0], spec[1]))
            case "--chunk-sizes": chunkSizes = iterator.next()!.split(separator: ",").map { Int($0)! << 10 }
            default: fatalError("unknown argument \(argument)")
            }
        }
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// CPU seconds used by the process so far: the machine is shared, so rates are also given per CPU second.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Minor page faults of the process so far: a first touch of a memory-mapped database page is one.
func minorFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
}

func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

func makeEntry(_ index: Int) -> StoredEntry {
    CacheCoreFixtures.makeEntry(
        url: "https://bench.example/items/\(index)?view=full", contentType: "application/octet-stream",
        extraHeaders: [("ETag", "\"\(index)\""), ("Cache-Control", "max-age=3600")])
}

/// Puts `count` entries, then times lookups and whole reads of random ones.
func sizeRun(count: Int, options: Options) throws {
    let path = options.directory + "/size-\(count).db"
    // --reuse: time lookups again on the database a previous run filled.
    let reusing = options.reuse && FileManager.default.fileExists(atPath: path)
    if !reusing {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let store = try SQLiteCacheStore(configuration: .init(path: path))
    let clock = ContinuousClock()
    let body = CacheCoreFixtures.randomBody(length: options.bodySize)
    var putTime = Duration.zero
    let putCPUStart = cpuSeconds()
    var lastBatchRate = 0.0
    let batch = min(count, 100_000)
    var index = 0
    while index < count && !reusing {
        let started = clock.now
        for _ in 0..<min(batch, count - index) {
            let writer = try store.beginWrite(hints: CacheBodyHints(contentType: "application/octet-stream"))
            try writer.append(body)
            try writer.commit(makeEntry(index))
            index += 1
        }
        let elapsed = clock.now - started
        putTime += elapsed
        lastBatchRate = Double(min(batch, count)) / seconds(elapsed)
    }
    let putCPU = cpuSeconds() - putCPUStart
    try store.checkpoint()
    let diskBytes = fileSize(path) + fileSize(path + "-wal")

    var random = SplitMix64(seed: 42)
    let keySpace = options.keySpace > 0 ? min(options.keySpace, count) : count
    // Keys are computed in the loop (SHA-256 of the URL) as a real lookup would.
    var faultsPerLookup = 0.0
    func timeGets(readBody: Bool) throws -> (wall: Double, cpu: Double) {
        let started = clock.now
        let cpuStart = cpuSeconds()
        let faultsStart = minorFaults()
        defer { if !readBody { faultsPerLookup = Double(minorFaults() - faultsStart) / Double(options.gets) } }
        var bytes = 0
        for _ in 0..<options.gets {
            let key = CacheKey.make(canonicalURL: makeEntry(Int(random.next() % UInt64(keySpace))).url)
            guard let entry = try store.entry(for: key) else { fatalError("missing entry") }
            if readBody {
                let reader = try store.openBody(of: entry, form: .identity)
                while let piece = try reader.next() { bytes += piece.count }
            }
        }
        precondition(!readBody || bytes == options.gets * options.bodySize)
        return (Double(options.gets) / seconds(clock.now - started), Double(options.gets) / (cpuSeconds() - cpuStart))
    }
    if options.warmAll {
        for index in 0..<keySpace {
            guard try store.entry(for: CacheKey.make(canonicalURL: makeEntry(index).url)) != nil else {
                fatalError("missing entry \(index)")
            }
        }
    } else {
        _ = try timeGets(readBody: false)  // warm the caches
    }
    let lookups = try timeGets(readBody: false)
    let gets = try timeGets(readBody: true)
    let putRates =
        reusing
        ? "- | -" : "\(Int(Double(count) / seconds(putTime))) / \(Int(Double(count) / putCPU)) | \(Int(lastBatchRate))"
    print(
        "| \(count)\(reusing ? " (reused)" : "")\(keySpace < count ? " (\(keySpace) looked up)" : "") | \(putRates) "
            + "| \(Int(lookups.wall)) / \(Int(lookups.cpu)) (\(String(format: "%.3f", faultsPerLookup)) faults) "
            + "| \(Int(gets.wall)) / \(Int(gets.cpu)) | \(diskBytes / count) |"
    )
}

/// Stores each sample at each chunk size; compares the stored size with `gzip -6` and times reads.
func compressionRun(options: Options) throws {
    print(
        "\n| sample | bytes | gzip -6 | "
            + options.chunkSizes.map { "\($0 >> 10) KiB ratio / identity MB/s / 1-byte range µs" }.joined(
                separator: " | ") + " |")
    print("|---|---|---|" + options.chunkSizes.map { _ in "---|" }.joined())
    let clock = ContinuousClock()
    for sample in options.samples {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: sample.path)))
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-6", "-c", sample.path]
        let pipe = Pipe()
        gzip.standardOutput = pipe
        try gzip.run()
        let gzipSize = pipe.fileHandleForReading.readDataToEndOfFile().count
        gzip.waitUntilExit()
        var cells = [String]()
        for chunkSize in options.chunkSizes {
            let path = options.directory + "/ratio-\(chunkSize).db"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            let store = try SQLiteCacheStore(configuration: .init(path: path, chunkSize: chunkSize))
            let writer = try store.beginWrite(hints: CacheBodyHints(contentType: "text/plain"))
            var offset = 0
            while offset < bytes.count {
                try writer.append(Array(bytes[offset..<min(offset + 16_384, bytes.count)]))
                offset += 16_384
            }
            let entry = try writer.commit(CacheCoreFixtures.makeEntry(url: "https://bench.example/" + sample.name))
            let gzipForm = entry.storedSize + 18
            var started = clock.now
            let rounds = 20
            for _ in 0..<rounds {
                let reader = try store.openBody(of: entry, form: .identity)
                while try reader.next() != nil {}
            }
            let megabytesPerSecond = Double(rounds * bytes.count) / seconds(clock.now - started) / 1e6
            started = clock.now
            let ranges = 2_000
            for round in 0..<ranges {
                let at = (round * 7919) % bytes.count
                let reader = try store.openBody(of: entry, form: .range(at..<at + 1))
                _ = try reader.next()
            }
            let rangeMicros = seconds(clock.now - started) / Double(ranges) * 1e6
            cells.append(
                String(
                    format: "%.3f (%.3f×gz) / %.0f / %.0f", Double(gzipForm) / Double(bytes.count),
                    Double(gzipForm) / Double(gzipSize), megabytesPerSecond, rangeMicros))
        }
        print(
            "| \(sample.name) | \(bytes.count) | \(String(format: "%.3f", Double(gzipSize) / Double(bytes.count))) | "
                + cells.joined(separator: " | ") + " |")
    }
}

let options = Options(CommandLine.arguments)
try FileManager.default.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
print(
    "| entries | puts/s (all) | puts/s (last 100k) | lookups/s | gets/s (lookup + \(options.bodySize) B body) | disk bytes/entry |"
)
print("|---|---|---|---|---|---|")
for count in options.entryCounts { try sizeRun(count: count, options: options) }
if !options.samples.isEmpty { try compressionRun(options: options) }

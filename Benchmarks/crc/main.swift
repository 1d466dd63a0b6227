// CRC-32 benchmark (a script, not a test): the Zlib target's CRC32 (folded with PCLMULQDQ, 512-bit lanes
// where the CPU has AVX-512 with VPCLMULQDQ, zlib's crc32 for the tail) against the 128-bit folding alone,
// zlib's crc32 alone and the two Swift loops zlib replaced, on 1 KiB, 64 KiB and 4 MiB buffers and on the chunks of PNG files; and,
// with `png`, the PNG validator (which checks every chunk's CRC) on the files given. Times are the
// thread's CPU time, because the machine is shared. Run through Benchmarks/crc/run.sh (release build).
import Glibc
import ImageSniffing
import Zlib

/// Thread CPU nanoseconds so far.
func cpuNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    var text = String(Int((value * pow(10, Double(digits))).rounded()))
    while text.count <= digits { text = "0" + text }
    return digits == 0 ? text : text.dropLast(digits) + "." + text.suffix(digits)
}

/// The implementations compared: one function from bytes to CRC-32 each.
let implementations: [(name: String, checksum: (UnsafeRawBufferPointer) -> UInt32)] = [
    ("bytewise", BaselineCRC32.bytewise),
    ("slicing-by-8", BaselineCRC32.slicingBy8),
    ("zlib", CRC32.zlibChecksum),
    ("folded 128-bit", CRC32.narrowFoldChecksum),
    ("folded", { CRC32.checksum($0) }),
]

/// Times each implementation on `buffers` (every buffer once per pass) in `rounds` rounds, the order of
/// the implementations rotating each round so that none always runs first; returns nanoseconds per
/// byte, one list per implementation.
@MainActor func timeRounds(_ buffers: [UnsafeRawBufferPointer], rounds: Int, bytesPerSample: Int) -> [[Double]] {
    let bytesPerPass = buffers.reduce(0) { $0 + $1.count }
    let passes = max(1, bytesPerSample / max(bytesPerPass, 1))
    var samples = Array(repeating: [Double](), count: implementations.count)
    var sink: UInt32 = 0
    for round in 0..<rounds {
        for step in 0..<implementations.count {
            let index = (round + step) % implementations.count
            let checksum = implementations[index].checksum
            let start = cpuNanoseconds()
            for _ in 0..<passes {
                for buffer in buffers { sink ^= checksum(buffer) }
            }
            samples[index].append(Double(cpuNanoseconds() - start) / Double(passes * bytesPerPass))
        }
    }
    if sink == 0x1234_5678 { print("") }  // keeps the checksums from being optimized away
    return samples
}

/// Prints one table row: the median GB/s of each implementation, and the last one's (what Larder uses)
/// ratio to each baseline (median of the per-round ratios).
@MainActor func report(_ label: String, _ samples: [[Double]]) {
    let current = samples[implementations.count - 1]
    var cells = [label]
    for list in samples { cells.append(format(1 / median(list))) }
    for list in samples.dropLast() {
        cells.append(format(median(zip(list, current).map { $0 / $1 }), 1) + "×")
    }
    print("| " + cells.joined(separator: " | ") + " |")
}

/// The type and data of every chunk of a PNG file: what the validator checks a CRC over.
func pngChunks(_ bytes: [UInt8]) -> [Range<Int>] {
    var chunks: [Range<Int>] = []
    var offset = 8
    while offset + 12 <= bytes.count {
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        guard offset + 12 + length <= bytes.count else { break }
        chunks.append(offset + 4..<offset + 8 + length)
        offset += 12 + length
    }
    return chunks
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes += buffer[0..<count]
    }
    return bytes
}

let arguments = Array(CommandLine.arguments.dropFirst())
let rounds = 15

if arguments.first == "png" {
    // One measurement per file: CPU time per validation, over at least 0.3 s. run.sh interleaves two
    // binaries (before and after a change) calling this. PNG_DEPTH=structure measures what a read from
    // the store pays (no inflating); by default, admission.
    let structureOnly = getenv("PNG_DEPTH").map { String(cString: $0) } == "structure"
    let validator = ImageValidator(depth: structureOnly ? .structure : .full)
    for path in arguments.dropFirst() {
        let bytes = readFile(path)
        guard case .valid = validator.validate(bytes) else { fatalError("\(path) does not validate") }
        var iterations = 0
        let start = cpuNanoseconds()
        bytes.withUnsafeBytes { buffer in
            while cpuNanoseconds() - start < 300_000_000 {
                for _ in 0..<8 { _ = validator.validate(buffer) }
                iterations += 8
            }
        }
        let perValidation = Double(cpuNanoseconds() - start) / Double(iterations)
        print("\(path)\t\(bytes.count)\t\(format(perValidation / 1000, 1))")
    }
} else {
    let names = implementations.map(\.name)
    print(
        "| buffer | " + names.map { "\($0) GB/s" }.joined(separator: " | ") + " | "
            + names.dropLast().map { "folded on \($0)" }.joined(separator: " | ") + " |")
    print("| --- |" + String(repeating: " ---: |", count: 2 * names.count - 1))
    var generator = SystemRandomNumberGenerator()
    for size in [1 << 10, 64 << 10, 4 << 20] {
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let answers = Set(bytes.withUnsafeBytes { buffer in implementations.map { $0.checksum(buffer) } })
        guard answers.count == 1 else { fatalError("the implementations disagree on \(size) bytes") }
        let samples = bytes.withUnsafeBytes { timeRounds([$0], rounds: rounds, bytesPerSample: 32 << 20) }
        report(size >= 1 << 20 ? "\(size >> 20) MiB" : "\(size >> 10) KiB", samples)
    }
    // The validator's CRC work on real files: every chunk's type and data, as it checks them.
    for path in arguments {
        let bytes = readFile(path)
        let chunks = pngChunks(bytes)
        let samples = bytes.withUnsafeBytes { whole in
            timeRounds(
                chunks.map { UnsafeRawBufferPointer(rebasing: whole[$0]) }, rounds: rounds, bytesPerSample: 32 << 20)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        report("\(name) (\(chunks.count) chunks, \(bytes.count >> 10) KiB)", samples)
    }
}

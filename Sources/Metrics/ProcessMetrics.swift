import Glibc

/// The process basics every Prometheus client exposes under the `process_` prefix
/// (https://prometheus.io/docs/instrumenting/writing_clientlibs/#process-metrics), read from `/proc`
/// when scraped, plus `larder_build_info`.
public struct ProcessMetrics: MetricsSource {
    /// The version reported by `larder_build_info`.
    public var version: String
    /// When the process started, seconds since the Unix epoch.
    public var startTime: Double

    /// Creates the group.
    /// - Parameters:
    ///   - version: Larder's version.
    ///   - startTime: the process start, seconds since the epoch (default: now).
    public init(version: String, startTime: Double? = nil) {
        self.version = version
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        self.startTime = startTime ?? (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
    }

    /// Writes `larder_build_info` and the `process_` families (each left out when `/proc` cannot be read).
    /// - Parameter text: the exposition being built.
    public func write(to text: inout PrometheusText) {
        text.family("larder_build_info", type: .gauge, help: "Always 1; the labels name the build.")
        text.sample("larder_build_info", labels: [("version", version)], value: 1)
        text.family(
            "process_start_time_seconds", type: .gauge, help: "Start time of the process since the Unix epoch.",
            value: startTime)
        if let (virtual, resident) = Self.memory() {
            text.family(
                "process_virtual_memory_bytes", type: .gauge, help: "Virtual memory size in bytes.", value: virtual)
            text.family(
                "process_resident_memory_bytes", type: .gauge, help: "Resident memory size in bytes.", value: resident)
        }
        if let fds = Self.openDescriptors() {
            text.family("process_open_fds", type: .gauge, help: "Number of open file descriptors.", value: fds)
        }
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            let seconds =
                Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
                + Double(usage.ru_stime.tv_usec) / 1e6
            text.family(
                "process_cpu_seconds_total", type: .counter, help: "User and system CPU time spent in seconds.",
                value: seconds)
        }
    }

    /// Virtual and resident size in bytes from `/proc/self/statm` (its first two fields, in pages).
    static func memory() -> (virtual: Int, resident: Int)? {
        guard let file = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[0]), let residentPages = Int(fields[1]) else { return nil }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        return (pages * pageSize, residentPages * pageSize)
    }

    /// The entries of `/proc/self/fd`, less the one the listing itself holds open.
    ///
    /// Only the first byte of each name is read, through a pointer: `entry.pointee` or its `d_name` would
    /// copy the whole 280-byte `dirent`, while `readdir` guarantees only the entry's `d_reclen` bytes (24
    /// for a short name). An entry at the end of its buffer, before an unmapped page, then crashed the
    /// process on a scrape (seen once in CI: SIGSEGV in `memcpy` under `openDescriptors`).
    static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        var count = 0
        while let entry = readdir(directory) {
            let first = UnsafeRawPointer(entry).load(fromByteOffset: nameOffset, as: UInt8.self)
            if first != UInt8(ascii: ".") { count += 1 }
        }
        return max(0, count - 1)
    }
}

import CLinux
import Dispatch

/// How the process's heap stays within its bounds under a server's threads (glibc malloc).
///
/// glibc gives each thread that allocates while others hold the arenas a new arena, up to eight per
/// CPU, and keeps what an arena freed for that arena. Dispatch starts worker threads as queues get busy,
/// so a ten-minute soak at 1 000 connections saw threads 40 -> 48 in its ninth minute and anonymous
/// memory step up with them (134.4 -> 139.6 MiB) after five minutes flat. Bounding the arenas makes new
/// threads share the existing heaps, and a periodic trim returns pages freed inside them.
public enum ProcessMemory {
    /// Bounds glibc's malloc arenas; call once, before the server's threads start.
    /// - Parameter count: the most arenas (at least 1).
    public static func limitArenas(to count: Int) {
        _ = clinux_limit_malloc_arenas(Int32(clamping: max(1, count)))
    }

    /// Lets each arena keep up to `trimThreshold` bytes freed at its top for the next allocations, and
    /// serves allocations below `mapThreshold` from the arenas; call once, before the server's threads
    /// start. The periodic trim (`trimPeriodically`) still gives the kept pages back.
    ///
    /// glibc's defaults give an arena's top back whenever it passes 128 KiB, and give allocations of
    /// 128 KiB or more mappings of their own (raising both limits as such mappings are freed, until any
    /// limit is set). Every response body read from the store is a new buffer, freed once written, so
    /// under load the top kept crossing that line: 0.7 page faults a 16 KiB hit and 12 a 256 KiB hit,
    /// each a page zeroed again (`perf stat -e page-faults`, `--hot-bytes 0`). Whatever is kept was in use
    /// a moment before, so the peak the memory bounds allow is not raised, only held until the trim.
    /// - Parameters:
    ///   - trimThreshold: the free bytes an arena's top may keep.
    ///   - mapThreshold: the size from which an allocation is mapped on its own (glibc takes at most
    ///     32 MiB).
    public static func holdFreedHeap(trimThreshold: Int, mapThreshold: Int) {
        _ = clinux_hold_freed_heap(Int32(clamping: trimThreshold), Int32(clamping: mapThreshold))
    }

    /// Returns free heap pages to the kernel every `interval` seconds, on a utility queue, for the rest of
    /// the process.
    /// - Parameter interval: seconds between trims; 0 for none.
    public static func trimPeriodically(every interval: Double) {
        guard interval > 0 else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "larder.memory", qos: .utility))
        let period = DispatchTimeInterval.milliseconds(Int(interval * 1000))
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(Int(interval * 100)))
        timer.setEventHandler { _ = clinux_malloc_trim() }
        timer.resume()
        trimTimer = timer
    }

    // Set once at start (by `serve`'s main thread), then only kept.
    nonisolated(unsafe) private static var trimTimer: (any DispatchSourceTimer)?
}

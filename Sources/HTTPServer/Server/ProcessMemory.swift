import CLinux
import Dispatch
import Synchronization

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

    /// Returns free heap pages to the kernel every `interval` seconds, and within a tenth of a second of the
    /// memory the settings bound for transient work (`held`: the write backlog and the bodies in flight)
    /// shrinking by `drop` bytes or more from its highest since the last trim; on a utility queue, for the
    /// rest of the process.
    ///
    /// Why both: a flood fills the write backlog to its bound and the store drains it in bursts, so the heap
    /// swings by tens of MiB. glibc keeps what was freed until a trim, so with the periodic trim alone the
    /// process held its high-water mark for up to `interval` after a drain: a soak sample taken then showed
    /// 120 MiB beyond every bound where 64 MiB is the stated constant (Benchmarks/README.md). With the
    /// drain looked at once a second, a sample could still land in the second after a drain: 69.6 MiB in
    /// the soak of 5c066f0, the backlog just fallen from 64 to 11.8 MiB. A look is two atomic loads, so it is
    /// now every `tick`. A trim walks the arenas' free lists under their locks (a millisecond or two for a
    /// heap of 150 MiB); it runs only when `drop` bytes were given up since the last one, which the store's
    /// drains allow a few times a second at most.
    /// - Parameters:
    ///   - interval: seconds between trims whatever `held` does; 0 for none (and no trim at all).
    ///   - drop: the shrink of `held`, in bytes, that calls for a trim.
    ///   - held: the bytes of bounded transient work now.
    public static func trimPeriodically(
        every interval: Double, whenShrunkBy drop: Int = .max, held: @escaping @Sendable () -> Int = { 0 }
    ) {
        guard interval > 0 else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "larder.memory", qos: .utility))
        let ticksPerTrim = max(1, Int((interval / tick).rounded()))
        let schedule = Mutex(TrimSchedule(ticksPerTrim: ticksPerTrim, drop: drop))
        let milliseconds = Int(tick * 1000)
        timer.schedule(
            deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds),
            leeway: .milliseconds(milliseconds / 10))
        timer.setEventHandler {
            let held = held()
            if schedule.withLock({ $0.tick(held: held) }) { _ = clinux_malloc_trim() }
        }
        timer.resume()
        trimTimer = timer
    }

    /// Seconds between two looks at the transient memory held (`trimPeriodically`).
    static let tick = 0.1

    /// When `trimPeriodically` trims, one tick (`tick`) at a time: at every `ticksPerTrim`-th tick since
    /// the last trim, and at the first tick whose `held` is `drop` bytes or more below its highest since
    /// the last trim.
    struct TrimSchedule {
        let ticksPerTrim: Int
        let drop: Int
        private var peak = 0
        private var ticks = 0

        init(ticksPerTrim: Int, drop: Int) {
            self.ticksPerTrim = ticksPerTrim
            self.drop = drop
        }

        /// One tick with `held` bytes held now; returns whether to trim.
        mutating func tick(held: Int) -> Bool {
            peak = max(peak, held)
            ticks += 1
            guard ticks >= ticksPerTrim || peak - held >= drop else { return false }
            peak = held
            ticks = 0
            return true
        }
    }

    // Set once at start (by `serve`'s main thread), then only kept.
    nonisolated(unsafe) private static var trimTimer: (any DispatchSourceTimer)?
}

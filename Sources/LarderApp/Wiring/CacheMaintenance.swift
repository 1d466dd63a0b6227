import CacheCore
import Dispatch
import FoundationEssentials
import Logging

/// Sweeps the store in the background: entries expired beyond their stale allowance go, orphaned
/// partial bodies are cleared, and batched hit counts are written (DESIGN.md, "Capacity").
///
/// The timer runs until `cancel()` (the end of `LarderWiring.Wired.finish`): the wiring is a library that tests
/// build many times, and a timer left running would keep its store open and sweeping for the process's life.
/// `@unchecked Sendable`: `timer` is set up in `init` and only cancelled afterwards (`DispatchSource.cancel`
/// is thread-safe); its handler runs on the maintenance queue only.
final class CacheMaintenance: @unchecked Sendable {
    private let queue: DispatchQueue
    private let timer: any DispatchSourceTimer

    /// Starts sweeping `store` every `interval` seconds on a utility queue (never a connection queue).
    /// - Parameters:
    ///   - store: the store to sweep.
    ///   - interval: seconds between sweeps; the first runs one interval after start.
    ///   - logger: where sweeps that removed something, and failures, are reported.
    init(store: any CacheMaintenanceStore, interval: Double, logger: Logger) {
        let queue = DispatchQueue(label: "larder.maintenance", qos: .utility)
        self.queue = queue
        timer = DispatchSource.makeTimerSource(queue: queue)
        let period = DispatchTimeInterval.milliseconds(Int(interval * 1000))
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(Int(interval * 100)))
        timer.setEventHandler {
            do {
                let swept = try store.sweep(now: Date())
                if swept > 0 { logger.info("swept expired entries", metadata: ["count": "\(swept)"]) }
            } catch {
                logger.error("sweep failed", metadata: ["error": "\(error)"])
            }
        }
        timer.resume()
    }

    /// Stops the sweeps and returns once none runs: one already running finishes first, so that nothing
    /// sweeps the store after shutdown has flushed it. The handler, and the store it holds, are released.
    /// Not to be called from a sweep (it waits on the sweeps' queue).
    func cancel() {
        timer.cancel()
        queue.sync {}
    }
}

extension LarderWiring {
    /// Starts the background sweep unless `--sweep-interval` is 0.
    /// - Parameters:
    ///   - store: the store to sweep.
    ///   - settings: the resolved settings.
    ///   - logger: the process logger.
    /// - Returns: the running sweep, to cancel at shutdown; `nil` when there is none.
    static func startMaintenance(store: any CacheMaintenanceStore, settings: ServeSettings, logger: Logger)
        -> CacheMaintenance?
    {
        guard settings.maintenance.sweepInterval > 0 else { return nil }
        return CacheMaintenance(store: store, interval: settings.maintenance.sweepInterval, logger: logger)
    }
}

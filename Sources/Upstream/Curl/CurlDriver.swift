import CCurl
import CLinux
import Dispatch
import Glibc
import Synchronization

/// Runs one libcurl multi handle on one dedicated thread.
///
/// Why one thread and `curl_multi_poll` rather than Dispatch sources on curl's sockets: libcurl handles
/// must not be used from two threads at once, so a single owner thread makes every curl call trivially
/// serial; `curl_multi_poll` already waits on all of curl's sockets and timers, and
/// `curl_multi_wakeup` lets any thread interrupt it. The socket-callback route would need a serial
/// queue, a source per socket and timer bookkeeping for the same result. One thread with `poll` serves
/// hundreds of concurrent origin fetches, which is what the concurrency bound allows anyway.
///
/// State split: `inbox` (commands from any thread, `CurlDriverInbox`) and `registry` (fetch handles, for
/// `inFlight`) are guarded by their mutexes; everything else belongs to the driver thread alone.
final class CurlDriver: @unchecked Sendable {
    enum Command {
        case submit(CurlTransfer)
        case cancel(UInt64)
        case pause(UInt64)
        case resume(UInt64)
    }

    let configuration: OriginClient.Configuration
    private let inbox = Mutex(CurlDriverInbox<Command>())
    let registry = Mutex([UInt64: OriginFetch]())
    private let nextID = Atomic<UInt64>(1)
    private let exited = DispatchSemaphore(value: 0)

    // Driver thread only, so without the runtime's exclusivity check (as `CurlTransfer`'s members).
    private let multi: CurlMulti
    @exclusivity(unchecked) private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    @exclusivity(unchecked) private var waiting: [CurlTransfer] = []
    @exclusivity(unchecked) private var waitingHead = 0
    /// Easy handles of finished transfers, reset, for the next ones: at most one per transfer slot.
    @exclusivity(unchecked) private var spareHandles: [CurlEasy] = []
    /// Easy handles made since the driver started (the others were spares): for tests.
    let handlesMade = Atomic<Int>(0)

    init(configuration: OriginClient.Configuration) {
        self.configuration = configuration
        guard let multi = CurlMulti() else { fatalError("curl_multi_init failed: libcurl is unusable") }
        self.multi = multi
        multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        multi.set(CURLMOPT_MAXCONNECTS, configuration.connectionCacheSize)
        multi.set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        DedicatedThread.start(name: "larder-origin") { [self] in
            // The default policy whatever the server's (`ThreadScheduling`): a request handed to this thread
            // preempts a batch thread and goes out to the origin at once.
            _ = clinux_set_thread_batch_policy(0)
            run()
        }
    }

    /// A new fetch id.
    func makeID() -> UInt64 { nextID.add(1, ordering: .relaxed).oldValue }

    /// Hands a command to the driver thread, waking it when it sleeps (`CurlDriverInbox`). Ignored after
    /// shutdown.
    func send(_ command: Command) {
        let rejected: CurlTransfer? = inbox.withLock { inbox in
            switch inbox.post(command) {
            case .queued(let wake):
                if wake { multi.wakeup() }
                return nil
            case .refused:
                if case .submit(let transfer) = command { return transfer }
                return nil
            }
        }
        if let rejected {
            // After shutdown nobody drives curl: report on the caller's thread.
            registry.withLock { _ = $0.removeValue(forKey: rejected.fetch.id) }
            rejected.finish(.failure(.cancelled))
        }
    }

    /// Cancels every fetch, stops the thread and waits for it (unless called on it).
    func shutdown() {
        let onDriver = inbox.withLock { inbox -> Bool? in
            guard inbox.shutDown() else { return nil }
            multi.wakeup()
            return inbox.driverThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        if onDriver == false { exited.wait() }
    }

    private func run() {
        inbox.withLock { $0.driverThread = pthread_self() }
        while true {
            let (commands, stopping) = inbox.withLock { $0.take() }
            for command in commands { handle(command) }
            if stopping { break }
            startWaiting()
            _ = multi.perform()
            collectFinished()
            for transfer in active.values { transfer.endRead() }
            startWaiting()
            // Only with nothing queued; a command posted from here on wakes the poll (`CurlDriverInbox`).
            if inbox.withLock({ $0.sleepIfIdle() }) {
                _ = multi.poll(milliseconds: 1000)
                inbox.withLock { $0.awoke() }
            }
        }
        for transfer in active.values + waiting[waitingHead...] { end(transfer, .failure(.cancelled)) }
        exited.signal()
    }

    private func handle(_ command: Command) {
        switch command {
        case .submit(let transfer):
            waiting.append(transfer)
        case .cancel(let id):
            if let transfer = activeTransfer(id) {
                end(transfer, .failure(.cancelled))
            } else if let index = waiting[waitingHead...].firstIndex(where: { $0.fetch.id == id }) {
                let transfer = waiting.remove(at: index)
                end(transfer, .failure(.cancelled))
            }
        case .pause(let id):
            guard let transfer = activeTransfer(id), let easy = transfer.easy else { return }
            if transfer.fetch.state.withLock({ $0.pauseRequested }) {
                _ = ccurl_easy_pause_receive(easy.handle)
                transfer.fetch.state.withLock { $0.progress.phase = .paused }
            }
        case .resume(let id):
            guard let transfer = activeTransfer(id), let easy = transfer.easy else { return }
            if !transfer.fetch.state.withLock({ $0.pauseRequested }) {
                transfer.fetch.state.withLock { $0.progress.phase = .running }
                _ = ccurl_easy_unpause(easy.handle)
            }
        }
    }

    private func activeTransfer(_ id: UInt64) -> CurlTransfer? {
        active.values.first { $0.fetch.id == id }
    }

    /// Moves waiting transfers into the multi handle while slots are free.
    private func startWaiting() {
        while active.count < configuration.maxConcurrentTransfers && waitingHead < waiting.count {
            let transfer = waiting[waitingHead]
            waitingHead += 1
            if waitingHead == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                waitingHead = 0
            } else if waitingHead > 64 && waitingHead * 2 > waiting.count {
                waiting.removeFirst(waitingHead)
                waitingHead = 0
            }
            start(transfer)
        }
    }

    private func start(_ transfer: CurlTransfer) {
        if case .failure(let error) = transfer.prepared { return end(transfer, .failure(error)) }
        if transfer.fetch.state.withLock({ $0.cancelRequested }) { return end(transfer, .failure(.cancelled)) }
        guard let handle = spareHandles.popLast() ?? makeHandle() else {
            return end(transfer, .failure(.protocolError(detail: "curl_easy_init failed")))
        }
        if let error = transfer.configure(handle) { return end(transfer, .failure(error)) }
        guard let easy = transfer.easy, multi.add(easy) == CURLM_OK else {
            return end(transfer, .failure(.protocolError(detail: "curl_multi_add_handle failed")))
        }
        active[easy.handle] = transfer
        transfer.fetch.state.withLock {
            $0.progress.phase = $0.pauseRequested ? .paused : .running
            $0.progress.startedAt = .now
        }
    }

    /// A new easy handle, when no spare is left.
    private func makeHandle() -> CurlEasy? {
        handlesMade.add(1, ordering: .relaxed)
        return CurlEasy()
    }

    private func collectFinished() {
        while let (handle, code) = multi.nextDone() {
            guard let transfer = active[handle] else { continue }
            end(transfer, transfer.outcome(for: code))
        }
    }

    /// Detaches a transfer (waiting or active) and reports its result exactly once.
    private func end(_ transfer: CurlTransfer, _ result: Result<OriginFetchMetrics, OriginError>) {
        if let easy = transfer.easy, active.removeValue(forKey: easy.handle) != nil {
            multi.remove(easy)
            if let spare = transfer.releaseEasyHandle(), spareHandles.count < configuration.maxConcurrentTransfers {
                spareHandles.append(spare)
            }
        }
        registry.withLock { _ = $0.removeValue(forKey: transfer.fetch.id) }
        transfer.finish(result)
    }
}

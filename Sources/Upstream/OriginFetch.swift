import Synchronization

/// The handle of one origin fetch: its progress, readable from any thread, and its controls.
public final class OriginFetch: Sendable {
    /// Where a fetch is in its life.
    public enum Phase: String, Sendable {
        /// Waiting for a free transfer slot.
        case queued
        /// Connecting or transferring.
        case running
        /// Running, but paused by its consumer.
        case paused
        /// Done (success or failure).
        case finished
    }

    /// A snapshot of a fetch's progress (for `GET /fetches`).
    public struct Progress: Sendable, Equatable {
        /// Where the fetch is.
        public var phase: Phase
        /// Body bytes received so far.
        public var bytesReceived: Int
        /// Body bytes announced by `Content-Length`, when there is one.
        public var bytesExpected: Int?
        /// The response status, once the head arrived.
        public var status: Int?
        /// When the fetch was submitted.
        public var submittedAt: ContinuousClock.Instant
        /// When it got a transfer slot, if it did.
        public var startedAt: ContinuousClock.Instant?
    }

    struct State {
        var progress: Progress
        var pauseRequested = false
        var cancelRequested = false
    }

    /// A number unique within the client, in submission order.
    public let id: UInt64
    /// The request as submitted.
    public let request: OriginRequest
    let state: Mutex<State>
    private let driver: CurlDriver

    init(id: UInt64, request: OriginRequest, driver: CurlDriver) {
        self.id = id
        self.request = request
        self.driver = driver
        state = Mutex(State(progress: Progress(phase: .queued, bytesReceived: 0, submittedAt: .now)))
    }

    /// The current progress.
    public var progress: Progress { state.withLock { $0.progress } }

    /// Stops the fetch; the delegate gets `didFinish(.failure(.cancelled))` unless it already finished.
    public func cancel() {
        state.withLock { $0.cancelRequested = true }
        driver.send(.cancel(id))
    }

    /// Stops reading from the origin until `resume()` (backpressure). Data curl already holds is kept and
    /// delivered after resuming. The total timeout keeps running.
    public func pause() {
        state.withLock { $0.pauseRequested = true }
        driver.send(.pause(id))
    }

    /// Reads from the origin again after `pause()`.
    public func resume() {
        state.withLock { $0.pauseRequested = false }
        driver.send(.resume(id))
    }
}

public import ImageSniffing
public import Metrics
import Synchronization
public import Upstream

/// Figures of the `/fetch` path that only it can see: origin fetches by outcome and their
/// latency, callers that joined a fetch already under way, refused origin addresses, stale answers
/// given because the origin could not be reached, and image validation failures by format. `HTTPMetrics` counts the answers themselves (`X-Cache`).
public final class FetchMetrics: MetricsSource {
    /// How an origin fetch ended, the `outcome` label.
    public enum Outcome: Int, Sendable, MetricLabelValue {
        /// A response arrived in full (any status, 304 included).
        case response
        /// The address connected to is not allowed (the SSRF guard).
        case addressRefused
        /// The URL or a request header could not be sent.
        case invalidRequest
        /// No connection to the origin.
        case connectFailed
        /// The connect or total time bound passed.
        case timeout
        /// The body or the head passed its size bound.
        case tooLarge
        /// The origin broke HTTP.
        case protocolError
        /// Larder cancelled it (every caller left, shutdown).
        case cancelled

        /// The label value.
        public var label: String {
            switch self {
            case .response: "response"
            case .addressRefused: "address_refused"
            case .invalidRequest: "invalid_request"
            case .connectFailed: "connect_failed"
            case .timeout: "timeout"
            case .tooLarge: "too_large"
            case .protocolError: "protocol_error"
            case .cancelled: "cancelled"
            }
        }

        /// The outcome of a fetch that ended with `error` (`nil`: it succeeded).
        /// - Parameter error: the failure, if any.
        public init(_ error: OriginError?) {
            guard let error else {
                self = .response
                return
            }
            switch error {
            case .addressRefused: self = .addressRefused
            case .invalidURL, .invalidRequestHeader: self = .invalidRequest
            case .connectFailed: self = .connectFailed
            case .timeout: self = .timeout
            case .bodyTooLarge, .headersTooLarge: self = .tooLarge
            case .protocolError, .connectionLost: self = .protocolError
            case .cancelled: self = .cancelled
            }
        }
    }

    /// Where an image failed validation, the `stage` label.
    public enum ValidationStage: Int, Sendable, CaseIterable {
        /// A fetched body, before it is stored.
        case admission
        /// A stored body, as it is served (the entry is deleted and refetched).
        case read
    }

    private let outcomes = AtomicCounters(count: Outcome.allCases.count)
    private let latency = Histogram()
    private let coalesced = Counter()
    private let staleDisconnected = Counter()
    private let storeFailures = Counter()
    private let tagsDropped = Counter()
    /// Whether the last store write that ended succeeded (true until one fails).
    private let lastStoreWrite = Atomic<Bool>(true)
    // One slot per format and stage, then one per stage for bytes that matched no format.
    private let imageFailures = AtomicCounters(count: (ImageFormat.allCases.count + 1) * ValidationStage.allCases.count)
    private let inFlight: @Sendable () -> Int

    /// Creates the metrics, all at 0.
    /// - Parameter inFlight: reads the number of origin fetches under way when scraped.
    public init(inFlight: @escaping @Sendable () -> Int = { 0 }) {
        self.inFlight = inFlight
    }

    /// Counts a finished origin fetch.
    /// - Parameters:
    ///   - error: why it failed, `nil` when it succeeded.
    ///   - nanoseconds: from sending the request to the end of the body (or the failure).
    public func originFetchFinished(error: OriginError?, nanoseconds: UInt64) {
        outcomes.add(1, at: Outcome(error).rawValue)
        latency.observe(nanoseconds: nanoseconds)
    }

    /// Counts a caller that joined an origin fetch another caller started.
    public func callerCoalesced() {
        coalesced.increment()
    }

    /// Counts an answer served stale because the origin could not be reached (RFC 9111 §4.2.4).
    public func servedStaleDisconnected() {
        staleDisconnected.increment()
    }

    /// Answers served stale because the origin could not be reached.
    public var staleDisconnectedCount: Int { staleDisconnected.value }

    /// Counts a response that could not be stored because a store write failed (disk full, read-only or
    /// deleted file, I/O error); it was served uncached.
    public func storeWriteFailed() {
        storeFailures.increment()
        lastStoreWrite.store(false, ordering: .relaxed)
    }

    /// Notes a response committed to the store: the store takes writes again (readiness).
    public func storeWriteSucceeded() {
        // A load first: on the hot path of every stored miss, the common case writes nothing.
        if !lastStoreWrite.load(ordering: .relaxed) { lastStoreWrite.store(true, ordering: .relaxed) }
    }

    /// Store writes that failed.
    public var storeWriteFailureCount: Int { storeFailures.value }

    /// Counts tags of a stored response that were dropped (beyond 64, longer than 256 bytes, or not
    /// printable: `EntryTags`).
    /// - Parameter count: how many.
    public func tagsDropped(_ count: Int) {
        tagsDropped.increment(by: count)
    }

    /// Tags dropped so far.
    public var tagsDroppedCount: Int { tagsDropped.value }

    /// Whether the last store write that ended failed (`/readyz` is 503 until one succeeds again).
    public var lastStoreWriteFailed: Bool { !lastStoreWrite.load(ordering: .relaxed) }

    /// Counts an image that failed validation.
    /// - Parameters:
    ///   - format: the format it was recognised as, `nil` for none.
    ///   - stage: on admission or on read.
    public func imageValidationFailed(format: ImageFormat?, stage: ValidationStage) {
        imageFailures.add(1, at: Self.imageSlot(format: format, stage: stage))
    }

    /// Fetches counted with an outcome.
    /// - Parameter outcome: the outcome.
    /// - Returns: the count.
    public func originFetchCount(_ outcome: Outcome) -> Int { outcomes.value(at: outcome.rawValue) }

    /// Callers that joined a fetch under way.
    public var coalescedCount: Int { coalesced.value }

    /// Image validation failures counted for a format and stage.
    /// - Parameters:
    ///   - format: the format, `nil` for bytes that matched none.
    ///   - stage: the stage.
    /// - Returns: the count.
    public func imageValidationFailureCount(format: ImageFormat?, stage: ValidationStage) -> Int {
        imageFailures.value(at: Self.imageSlot(format: format, stage: stage))
    }

    private static func imageSlot(format: ImageFormat?, stage: ValidationStage) -> Int {
        let formatIndex = format.flatMap { ImageFormat.allCases.firstIndex(of: $0) } ?? ImageFormat.allCases.count
        return stage.rawValue * (ImageFormat.allCases.count + 1) + formatIndex
    }

    /// Writes the origin, coalescing, stale-if-disconnected and image-validation families.
    /// - Parameter text: the exposition being built.
    public func write(to text: inout PrometheusText) {
        text.family(
            "larder_origin_requests_total", type: .counter,
            help: "Origin fetches by how they ended (response, address_refused, timeout, ...).", label: "outcome",
            values: outcomes.samples(by: Outcome.self))
        text.family(
            "larder_origin_request_duration_seconds", type: .histogram,
            help: "Origin fetches from the request sent to the last body byte or the failure.")
        text.histogram("larder_origin_request_duration_seconds", snapshot: latency.snapshot)
        text.family(
            "larder_origin_refused_addresses_total", type: .counter,
            help: "Origin fetches refused because the address connected to is not allowed (SSRF guard).",
            value: outcomes.value(at: Outcome.addressRefused.rawValue))
        text.family(
            "larder_origin_fetches_in_flight", type: .gauge, help: "Origin fetches under way now.", value: inFlight())
        text.family(
            "larder_coalesced_waiters_total", type: .counter,
            help: "Callers that joined an origin fetch already under way instead of starting their own.",
            value: coalesced.value)
        text.family(
            "larder_stale_if_disconnected_total", type: .counter,
            help: "Stored responses served stale because the origin could not be reached (RFC 9111 4.2.4).",
            value: staleDisconnected.value)
        text.family(
            "larder_store_write_failures_total", type: .counter,
            help: "Responses served uncached because writing them to the store failed (disk full, read-only file).",
            value: storeFailures.value)
        text.family(
            "larder_tags_dropped_total", type: .counter,
            help:
                "Tags (Surrogate-Key, Cache-Tag) of stored responses dropped: beyond 64, over 256 bytes, or unprintable.",
            value: tagsDropped.value)
        text.family(
            "larder_image_validation_failures_total", type: .counter,
            help: "Images that failed validation, by format (unknown: matched none) and stage (admission, read).")
        for stage in ValidationStage.allCases {
            let stageLabel = stage == .admission ? "admission" : "read"
            for (index, format) in (ImageFormat.allCases.map(\.rawValue) + ["unknown"]).enumerated() {
                text.sample(
                    "larder_image_validation_failures_total", labels: [("format", format), ("stage", stageLabel)],
                    value: imageFailures.value(at: stage.rawValue * (ImageFormat.allCases.count + 1) + index))
            }
        }
    }
}

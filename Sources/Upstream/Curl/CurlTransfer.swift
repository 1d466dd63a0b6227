import CCurl
import Glibc
import HTTPCore
import Synchronization

/// The driver-side state of one fetch: its easy handle, header list, parser, counters and failure.
///
/// Created on the submitting thread, handed to the driver through its locked inbox, and from then on
/// touched only on the driver thread (libcurl callbacks run there too, inside `curl_multi_perform`). Being
/// confined, its mutable members skip the runtime's exclusivity check, which the header callback alone paid
/// a dozen times a fetch (as `HTTPConnection`'s do; docs/ARCHITECTURE.md).
final class CurlTransfer: @unchecked Sendable {
    let fetch: OriginFetch
    let delegate: any OriginFetchDelegate
    let limits: OriginLimits
    /// The validated URL and the fields to forward, or the validation failure to report.
    let prepared: Result<(url: OriginURL, headers: HTTPHeaders), OriginError>

    @exclusivity(unchecked) private(set) var easy: CurlEasy?
    @exclusivity(unchecked) private var headerList: CurlHeaderList?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    @exclusivity(unchecked) private var parser = ResponseHeadParser()
    @exclusivity(unchecked) private var head: OriginResponseHead?
    @exclusivity(unchecked) private var bodyBytes = 0
    /// A failure decided in a callback; it wins over libcurl's generic code.
    @exclusivity(unchecked) private var abortReason: OriginError?
    /// The last address the socket hook refused.
    @exclusivity(unchecked) private var refusal: (address: String, reason: AddressRefusal)?
    private let policy: AddressPolicy
    private let ownEndpoints: [IPEndpoint]
    private let tls: OriginTLS
    @exclusivity(unchecked) private(set) var isFinished = false
    /// Whether the delegate was told something since the driver's last `endRead()` (driver thread).
    @exclusivity(unchecked) private var deliveredSinceRead = false

    init(fetch: OriginFetch, delegate: any OriginFetchDelegate, configuration: OriginClient.Configuration) {
        self.fetch = fetch
        self.delegate = delegate
        limits = fetch.request.limits ?? configuration.limits
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        policy = configuration.addressPolicy
        ownEndpoints = configuration.ownEndpoints
        tls = configuration.tls
        prepared = Result { () throws(OriginError) in
            let url = try OriginURL(validating: fetch.request.url, maximumLength: configuration.maxURLLength)
            // The request line is built from it (CURLOPT_CUSTOMREQUEST): never a space, CR or LF in it.
            guard HTTPToken.isValid(fetch.request.method.rawValue) else {
                throw .invalidRequestHeader(name: "method", reason: "not a token")
            }
            let headers = try OriginHeaderForwarding.forwardedRequestHeaders(
                fetch.request.headers, viaName: configuration.viaName)
            return (url, headers)
        }
    }

    deinit {
        // The easy handle points at the header list and the error buffer: clean it up first.
        easy = nil
        headerList = nil
        errorBuffer.deallocate()
    }

    /// Whether the request carries content: GET and HEAD never; another method when it has a body, or
    /// when it is one whose content is expected (POST, PUT, PATCH: sent with `Content-Length: 0` when empty).
    static func sendsBody(_ request: OriginRequest) -> Bool {
        guard request.method != .get, request.method != .head, let body = request.body else { return false }
        return !body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method.rawValue)
    }

    /// The options that choose the method and send the content (https://curl.se/libcurl/c/CURLOPT_CUSTOMREQUEST.html,
    /// https://curl.se/libcurl/c/CURLOPT_COPYPOSTFIELDS.html): curl copies the body, so the request may go.
    private func setMethod(on easy: CurlEasy) {
        let request = fetch.request
        if request.method == .head { return easy.set(CURLOPT_NOBODY, 1) }
        if request.method == .get { return easy.set(CURLOPT_HTTPGET, 1) }
        if Self.sendsBody(request), let body = request.body {
            // The size first: the body may hold NUL bytes, and COPYPOSTFIELDS copies exactly that many.
            easy.set(CURLOPT_POSTFIELDSIZE, body.count)
            body.withUnsafeBytes { bytes in
                // An empty body still needs a pointer (NULL would make curl read the body from a callback).
                guard let start = bytes.baseAddress else { return easy.set(CURLOPT_COPYPOSTFIELDS, literal: "") }
                easy.set(CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: start))
            }
        }
        // After POSTFIELDS, which would make it a POST: the caller's method, sent as given.
        easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
    }

    /// Sets this transfer up on `easy`, a new handle or one reset since its last transfer, and keeps it.
    /// Returns the failure to report if that is impossible.
    func configure(_ easy: CurlEasy) -> OriginError? {
        guard case .success(let prepared) = prepared else { return nil }
        let list = CurlHeaderList(headers: prepared.headers, sendsBody: Self.sendsBody(fetch.request))
        let me = Unmanaged.passUnretained(self).toOpaque()
        easy.applyCommonPolicy()
        easy.set(CURLOPT_URL, prepared.url.string)
        easy.set(CURLOPT_REDIR_PROTOCOLS_STR, literal: "http,https")
        easy.set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        // No CURLOPT_PIPEWAIT: with it a new fetch waits on a busy connection to the same host
        // (hoping to multiplex), so one silent origin request held every later one hostage.
        easy.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, limits.connectTimeout.curlMilliseconds)
        easy.set(CURLOPT_TIMEOUT_MS, limits.totalTimeout.curlMilliseconds)
        easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(list.list))
        easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        easy.check(ccurl_easy_setopt_opensocket_callback(easy.handle, curlOpenSocketCallback))
        easy.set(CURLOPT_OPENSOCKETDATA, pointer: me)
        easy.setDataCallbacks(write: curlWriteCallback, header: curlHeaderCallback, data: me)
        easy.applyTLS(tls)
        setMethod(on: easy)
        if let failure = easy.setupFailure { return .protocolError(detail: failure) }
        self.easy = easy
        headerList = list
        return nil
    }

    /// Gives up the easy handle once the transfer left the multi handle, reset so that it points at
    /// nothing of this transfer's (its header list, its error buffer, itself) any more.
    /// - Returns: the handle, for the next transfer.
    func releaseEasyHandle() -> CurlEasy? {
        guard let easy else { return nil }
        easy.reset()
        self.easy = nil
        headerList = nil
        return easy
    }

    // MARK: libcurl callbacks (driver thread)

    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        if fetch.state.withLock({ $0.cancelRequested }) { return 0 }
        let outcome = parser.consume(line)
        if parser.headerBytes > limits.maxHeaderBytes {
            abortReason = .headersTooLarge(limit: limits.maxHeaderBytes)
            return 0
        }
        switch outcome {
        case .needMore:
            return line.count
        case .malformed(let detail):
            abortReason = .protocolError(detail: detail)
            return 0
        case .interim(let head):
            // `100 Continue` answers libcurl's own `Expect` and `101` an upgrade it never asks for: neither is
            // the caller's (RFC 9110 §15.2: a proxy forwards 1xx responses it did not ask for itself).
            if head.status != 100 && head.status != 101 {
                delegate.fetch(fetch, didReceiveInterim: head)
            }
            return line.count
        case .head(let head):
            let expected = expectedBodyLength(head)
            if let expected, expected > limits.maxBodyBytes {
                abortReason = .bodyTooLarge(limit: limits.maxBodyBytes)
                return 0
            }
            self.head = head
            fetch.state.withLock {
                $0.progress.status = head.status
                $0.progress.bytesExpected = expected
            }
            deliveredSinceRead = true
            delegate.fetch(fetch, didReceiveHead: head)
            return line.count
        }
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        let (paused, cancelled) = fetch.state.withLock { ($0.pauseRequested, $0.cancelRequested) }
        if cancelled { return 0 }
        if paused {
            fetch.state.withLock { $0.progress.phase = .paused }
            return Int(ccurl_writefunc_pause())
        }
        guard head != nil else {
            abortReason = .protocolError(detail: "body before the response head")
            return 0
        }
        if bodyBytes + bytes.count > limits.maxBodyBytes {
            abortReason = .bodyTooLarge(limit: limits.maxBodyBytes)
            return 0
        }
        bodyBytes += bytes.count
        fetch.state.withLock { $0.progress.bytesReceived = bodyBytes }
        deliveredSinceRead = true
        // From typed bytes: an array made from raw bytes copies them one at a time, not with memcpy.
        delegate.fetch(fetch, didReceive: Array(bytes.assumingMemoryBound(to: UInt8.self)))
        return bytes.count
    }

    /// The driver handed over everything libcurl read in its last round: tells the delegate when this
    /// transfer got a head or bytes in it.
    func endRead() {
        guard deliveredSinceRead, !isFinished else { return }
        deliveredSinceRead = false
        delegate.fetchDidEndRead(fetch)
    }

    func openSocket(family: Int32, socketType: Int32, protocolNumber: Int32, address: IPAddress?, port: UInt16)
        -> curl_socket_t
    {
        guard let address else {
            refusal = ("family \(family)", .unsupportedFamily(family))
            return ccurl_socket_bad()
        }
        let endpointText = IPEndpoint(address: address, port: port).description
        if ownEndpoints.contains(where: { $0.matches(address, port: port) }) {
            refusal = (endpointText, .ownAddress(endpointText))
            return ccurl_socket_bad()
        }
        if case .refused(let reason) = policy.verdict(for: address) {
            refusal = (address.description, reason)
            return ccurl_socket_bad()
        }
        return socket(family, socketType | Int32(SOCK_CLOEXEC.rawValue), protocolNumber)
    }

    // MARK: Completion (driver thread)

    /// Reports the result to the delegate once, and marks the fetch finished.
    func finish(_ result: Result<OriginFetchMetrics, OriginError>) {
        guard !isFinished else { return }
        isFinished = true
        fetch.state.withLock { $0.progress.phase = .finished }
        delegate.fetch(fetch, didFinish: result)
    }

    /// The outcome of a transfer libcurl reported done with `code`.
    func outcome(for code: CURLcode) -> Result<OriginFetchMetrics, OriginError> {
        if fetch.state.withLock({ $0.cancelRequested }) { return .failure(.cancelled) }
        if let abortReason { return .failure(abortReason) }
        if code == CURLE_OK, let head, let easy {
            let micro = { (field: CURLINFO) in Duration.microseconds(easy.info(offset: field)) }
            return .success(
                OriginFetchMetrics(
                    status: head.status, bodyBytes: bodyBytes, headerBytes: parser.headerBytes,
                    reusedConnection: easy.info(long: CURLINFO_NUM_CONNECTS) == 0,
                    remoteAddress: easy.info(string: CURLINFO_PRIMARY_IP),
                    remotePort: easy.info(long: CURLINFO_PRIMARY_PORT),
                    connectTime: micro(CURLINFO_CONNECT_TIME_T), totalTime: micro(CURLINFO_TOTAL_TIME_T)))
        }
        return .failure(Self.mapError(code, detail: curlDetail(code), refusal: refusal, headReceived: head != nil))
    }

    private func curlDetail(_ code: CURLcode) -> String { CurlEasy.detail(code, errorBuffer: errorBuffer) }

    private func expectedBodyLength(_ head: OriginResponseHead) -> Int? {
        if fetch.request.method == .head || HTTPStatus(code: head.status).forbidsContent { return nil }
        guard let text = head.headers["Content-Length"] else { return nil }
        return Int(text)
    }
}

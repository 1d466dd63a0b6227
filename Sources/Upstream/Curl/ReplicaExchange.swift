import CCurl
import HTTPCore

/// The state of one `ReplicaClient` exchange: the parsed head and the body read so far. Lives on the
/// calling thread for the length of one `curl_easy_perform`, which runs the callbacks on that thread.
final class ReplicaExchange {
    private let maxBodyBytes: Int
    private var parser = ResponseHeadParser()
    private var head: OriginResponseHead?
    private var body: [UInt8] = []
    /// A failure decided in a callback; it wins over libcurl's generic code.
    private var abortReason: ReplicaClientError.Kind?
    private var abortDetail = ""
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit { errorBuffer.deallocate() }

    /// Sets every option of the exchange on `easy` but TLS trust; `self` and `headers` must outlive the
    /// transfer. A refused option is left in `easy.firstFailure`.
    func configure(
        _ easy: CurlEasy, method: String, url: String, headers: CurlHeaderList, body: [UInt8], timeout: Duration
    ) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        easy.applyCommonPolicy()
        easy.set(CURLOPT_URL, url)
        easy.set(CURLOPT_TIMEOUT_MS, timeout.curlMilliseconds)
        easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headers.list))
        easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        easy.setDataCallbacks(write: replicaWriteCallback, header: replicaHeaderCallback, data: me)
        switch method {
        case "GET":
            easy.set(CURLOPT_HTTPGET, 1)
        case "HEAD":
            easy.set(CURLOPT_NOBODY, 1)
        default:
            if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) {
                // The size first: COPYPOSTFIELDS then copies exactly that many bytes, NULs included.
                easy.check(ccurl_easy_setopt_off(easy.handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                body.withUnsafeBytes {
                    easy.set(
                        CURLOPT_COPYPOSTFIELDS,
                        pointer: UnsafeMutableRawPointer(mutating: $0.baseAddress ?? UnsafeRawPointer(errorBuffer)))
                }
            }
            easy.set(CURLOPT_CUSTOMREQUEST, method)
        }
    }

    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        switch parser.consume(line) {
        case .needMore, .interim:
            return line.count
        case .malformed(let detail):
            abortReason = .malformed
            abortDetail = detail
            return 0
        case .head(let head):
            self.head = head
            return line.count
        }
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if body.count + bytes.count > maxBodyBytes {
            abortReason = .malformed
            abortDetail = "body larger than \(maxBodyBytes) bytes"
            return 0
        }
        body += bytes
        return bytes.count
    }

    /// The response, or why there is none, after `curl_easy_perform` returned `code`.
    func outcome(_ code: CURLcode, easy: CurlEasy, url: String) throws(ReplicaClientError) -> ReplicaResponse {
        if let abortReason { throw .failed(url: url, kind: abortReason, detail: abortDetail) }
        if code == CURLE_OK, let head {
            return ReplicaResponse(status: head.status, headers: head.headers, body: body)
        }
        let detail = CurlEasy.detail(code, errorBuffer: errorBuffer)
        let kind: ReplicaClientError.Kind
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST: kind = .connect
        case CURLE_OPERATION_TIMEDOUT: kind = .timeout
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_OK:
            kind = .malformed
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM: kind = .tls
        default: kind = .other
        }
        throw .failed(url: url, kind: kind, detail: code == CURLE_OK ? "no response head" : detail)
    }
}

/// CURLOPT_WRITEFUNCTION of a `ReplicaExchange`.
private func replicaWriteCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    deliverCurlData(buffer, size, count, userData) { (exchange: ReplicaExchange, bytes) in
        exchange.receiveBody(bytes)
    }
}

/// CURLOPT_HEADERFUNCTION of a `ReplicaExchange`.
private func replicaHeaderCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    deliverCurlData(buffer, size, count, userData) { (exchange: ReplicaExchange, line) in
        exchange.receiveHeaderLine(line)
    }
}

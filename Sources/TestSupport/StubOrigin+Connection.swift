import Foundation
import HTTPCore
import Synchronization

extension StubOrigin {
    /// Serves one connection until it closes, the response says close, or the stub stops.
    func serve(_ fd: Int32, connection: Int) {
        defer {
            state.withLock { _ = $0.openSockets.remove(fd) }
            close(fd)
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var buffer: [UInt8] = []
        while !isStopped {
            guard let head = readHead(fd, buffer: &buffer) else { return }
            guard var request = record(head, connection: connection) else {
                _ = sendAll(
                    fd, Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            if let length = request.headers["Content-Length"].flatMap(Int.init), length > 0 {
                guard let body = readBody(length, fd, buffer: &buffer) else { return }
                request.body = body
                state.withLock { $0.requests[request.sequence - 1].body = body }
            }
            let response = route(request)
            let keepOpen = answer(request, with: response, on: fd)
            state.withLock { $0.activeRequests -= 1 }
            if !keepOpen { return }
        }
    }

    private func route(_ request: StubOriginRequest) -> StubOriginResponse {
        let handler = state.withLock { $0.routes[request.target] ?? $0.routes[request.path] }
        return handler?(request) ?? StubOriginResponse(status: 404, body: Array("no route for \(request.path)\n".utf8))
    }

    /// Parses and records a request head; `nil` when it is not a request head.
    private func record(_ head: [UInt8], connection: Int) -> StubOriginRequest? {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count == 3 else { return nil }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingHTTPWhitespace())
        }
        let target = String(requestLine[1])
        return state.withLock { state in
            let request = StubOriginRequest(
                method: String(requestLine[0]), target: target,
                path: String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]),
                version: String(requestLine[2]), headers: headers, connection: connection,
                sequence: state.requests.count + 1)
            state.requests.append(request)
            state.activeRequests += 1
            state.maxActiveRequests = max(state.maxActiveRequests, state.activeRequests)
            return request
        }
    }

    /// Writes the response; returns whether the connection may carry another request.
    private func answer(_ request: StubOriginRequest, with response: StubOriginResponse, on fd: Int32) -> Bool {
        if response.neverAnswers {
            waitForPeerToLeave(fd)
            return false
        }
        if !response.interimBytes.isEmpty && !sendAll(fd, response.interimBytes) { return false }
        response.afterInterim?()
        guard nap(response.delayBeforeHead) else { return false }
        if let raw = response.rawBytes {
            _ = sendAll(fd, raw)
            return false
        }
        let bodiless =
            request.method == "HEAD" || (100..<200).contains(response.status)
            || response.status == 204 || response.status == 304
        let closes =
            response.closesConnection || response.framing == .closeDelimited
            || request.headers["Connection"]?.lowercased() == "close"
        var head = "HTTP/1.1 \(response.status) \(response.reasonPhrase ?? "Stub")\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        switch response.framing {
        case .contentLength:
            if response.status != 204 && response.status != 304 && !(100..<200).contains(response.status) {
                head += "Content-Length: \(response.declaredContentLength ?? response.body.count)\r\n"
            }
        case .chunked: head += "Transfer-Encoding: chunked\r\n"
        case .closeDelimited: break
        }
        if closes { head += "Connection: close\r\n" }
        head += "\r\n"
        guard sendAll(fd, Array(head.utf8)) else { return false }
        if bodiless { return !closes }
        guard sendBody(response, on: fd) else { return false }
        return !closes && response.ending == .complete
    }

    /// Sends the body per framing and ending; false when the connection must end now.
    private func sendBody(_ response: StubOriginResponse, on fd: Int32) -> Bool {
        let body = response.body
        let pieceSize = response.chunkSize > 0 ? response.chunkSize : max(1, body.count)
        var sent = 0
        var limit = Int.max
        switch response.ending {
        case .resetAfter(let bytes), .closeAfter(let bytes): limit = bytes
        case .complete, .endless: break
        }
        repeat {
            var offset = 0
            while offset < body.count && sent < limit {
                let count = min(pieceSize, body.count - offset, limit - sent)
                let piece = Array(body[offset..<offset + count])
                let framed =
                    response.framing == .chunked
                    ? Array("\(String(count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8) : piece
                guard sendAll(fd, framed) else { return false }
                offset += count
                sent += count
                if response.delayBetweenChunks > .zero && !nap(response.delayBetweenChunks) { return false }
            }
            if response.ending == .endless && body.isEmpty { return false }
        } while response.ending == .endless && !isStopped
        switch response.ending {
        case .resetAfter:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            return false
        case .closeAfter:
            return false
        case .complete, .endless:
            if response.framing == .chunked { return sendAll(fd, Array("0\r\n\r\n".utf8)) }
            return true
        }
    }

    private func readHead(_ fd: Int32, buffer: inout [UInt8]) -> [UInt8]? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let head = Array(buffer[..<end.lowerBound])
                buffer.removeSubrange(..<end.upperBound)
                return head
            }
            guard buffer.count < 64 << 10 else { return nil }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Reads `length` bytes of content, those already buffered first; `nil` when the peer left before.
    private func readBody(_ length: Int, _ fd: Int32, buffer: inout [UInt8]) -> [UInt8]? {
        let taken = min(length, buffer.count)
        var body = Array(buffer[..<taken])
        buffer.removeFirst(taken)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while body.count < length {
            let count = recv(fd, &chunk, min(chunk.count, length - body.count), 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            body.append(contentsOf: chunk[0..<count])
        }
        return body
    }

    func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Sleeps in small slices; false when the stub stopped meanwhile.
    private func nap(_ duration: Duration) -> Bool {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            if isStopped { return false }
            usleep(UInt32(min(10_000, max(1, (deadline - ContinuousClock.now).microseconds))))
        }
        return !isStopped
    }

    /// Blocks until the peer closes its side or the stub stops (for never-answering responses).
    private func waitForPeerToLeave(_ fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !isStopped {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 20)
            if ready > 0 {
                if recv(fd, &chunk, chunk.count, 0) <= 0 { return }
            }
        }
    }
}

extension Duration {
    fileprivate var microseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
    }
}

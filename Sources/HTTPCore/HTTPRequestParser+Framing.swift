/// Message framing (RFC 9112 §6): Host, Content-Length, Transfer-Encoding and Expect, read from the
/// field bytes as each line arrives and judged once the header section is complete.
extension HTTPRequestParser {
    /// Notes what a framing-relevant field line says. Names are matched by length first, so other
    /// fields cost one switch.
    mutating func recordFramingField(_ buffer: UnsafeBufferPointer<UInt8>, name: Range<Int>, value: Range<Int>) {
        switch name.count {
        case 4 where buffer.equalsLowercased(name, "host"):
            message.hostCount += 1
            if !URIGrammar.isHostAndPort(buffer, value) { message.hostInvalid = true }
        case 6 where buffer.equalsLowercased(name, "expect"):
            recordExpect(buffer, value)
        case 14 where buffer.equalsLowercased(name, "content-length"):
            recordContentLength(buffer, value)
        case 17 where buffer.equalsLowercased(name, "transfer-encoding"):
            recordTransferEncoding(buffer, value)
        default:
            break
        }
    }

    /// `Content-Length = 1*DIGIT`; a line may repeat one value as a list ("5, 5") and several lines
    /// may repeat it, but different values, signs, spaces inside a number or empty members are
    /// errors (RFC 9112 §6.3 item 5).
    private mutating func recordContentLength(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) {
        message.contentLengthPresent = true
        guard message.contentLengthError == nil else { return }
        var index = value.lowerBound
        repeat {
            var memberEnd = index
            while memberEnd < value.upperBound, buffer[memberEnd] != ASCII.comma { memberEnd += 1 }
            let member = buffer.trimmingWhitespace(index..<memberEnd)
            guard !member.isEmpty else {
                message.contentLengthError = "empty Content-Length"
                return
            }
            var length = 0
            for position in member {
                let byte = buffer[position]
                guard HTTPByteClass.isDigit(byte) else {
                    message.contentLengthError = "Content-Length is not a decimal number"
                    return
                }
                let (times10, overflowA) = length.multipliedReportingOverflow(by: 10)
                let (sum, overflowB) = times10.addingReportingOverflow(Int(byte &- 0x30))
                guard !overflowA, !overflowB else {
                    message.contentLengthError = "Content-Length overflows"
                    return
                }
                length = sum
            }
            if let known = message.contentLength, known != length {
                message.contentLengthError = "different Content-Length values"
                return
            }
            message.contentLength = length
            index = memberEnd + 1
        } while index <= value.upperBound
    }

    /// `Transfer-Encoding = #transfer-coding` across all lines (RFC 9112 §6.1); empty list members are
    /// ignored (RFC 9110 §5.6.1). Notes how often `chunked` appears and whether it is last.
    private mutating func recordTransferEncoding(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) {
        message.transferEncoding.present = true
        buffer.forEachListMember(in: value) { member in
            var tokenEnd = member.lowerBound
            while tokenEnd < member.upperBound, HTTPByteClass.isToken(buffer[tokenEnd]) { tokenEnd += 1 }
            let coding = member.lowerBound..<tokenEnd
            let parameters = tokenEnd..<member.upperBound
            guard !coding.isEmpty,
                buffer.isParameterList(parameters, valueRequired: true, spaceAroundEquals: false)
            else {
                message.transferEncoding.invalid = true
                return
            }
            if buffer.equalsLowercased(coding, "chunked") {
                // chunked takes no parameters (RFC 9112 §7.1).
                if !parameters.isEmpty { message.transferEncoding.invalid = true }
                message.transferEncoding.chunkedCount += 1
                message.transferEncoding.lastIsChunked = true
            } else {
                message.transferEncoding.otherCount += 1
                message.transferEncoding.lastIsChunked = false
            }
        }
    }

    /// `Expect = #expectation` (RFC 9110 §10.1.1): only `100-continue` is known; anything else makes
    /// the request fail with 417.
    private mutating func recordExpect(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) {
        buffer.forEachListMember(in: value) { member in
            if buffer.equalsLowercased(member, "100-continue") {
                message.expectsContinue = true
            } else {
                message.unknownExpectation = true
            }
        }
    }

    /// Judges the complete header section and decides how the body is framed (RFC 9112 §6.3).
    mutating func finishHead() -> Step {
        let version = message.version
        if version == .http1_1 && message.hostCount == 0 {
            return fail(.badRequest, "HTTP/1.1 request without Host")
        }
        if message.hostCount > 1 { return fail(.badRequest, "more than one Host field line") }
        if message.hostInvalid { return fail(.badRequest, "invalid Host") }
        let transferEncoding = message.transferEncoding
        if transferEncoding.present {
            // Either framing could be the one a proxy in front used: refuse both (§6.3 item 3, §11.2).
            if message.contentLengthPresent {
                return fail(.badRequest, "both Content-Length and Transfer-Encoding")
            }
            if version == .http1_0 { return fail(.badRequest, "Transfer-Encoding in an HTTP/1.0 request") }
            if transferEncoding.invalid { return fail(.badRequest, "malformed Transfer-Encoding") }
            if transferEncoding.chunkedCount > 1 { return fail(.badRequest, "chunked applied more than once") }
            if !transferEncoding.lastIsChunked {
                return fail(.badRequest, "chunked is not the final transfer coding")
            }
            if transferEncoding.otherCount > 0 {
                return fail(.notImplemented, "transfer codings other than chunked are not supported")
            }
        }
        if let reason = message.contentLengthError { return fail(.badRequest, reason) }
        if message.unknownExpectation { return fail(.expectationFailed, "unsupported expectation") }
        if let length = message.contentLength, length > limits.maxBodyBytes {
            return fail(.contentTooLarge, "body larger than \(limits.maxBodyBytes) bytes")
        }
        // RFC 9110 §10.1.1: a 100-continue expectation in an HTTP/1.0 request is ignored.
        let wantsContinue = message.expectsContinue && version == .http1_1
        if transferEncoding.present {
            message.continuePending = wantsContinue
            state = .chunkSizeLine
            return nil
        }
        if let length = message.contentLength, length > 0 {
            message.continuePending = wantsContinue
            state = .fixedBody(length)
            return nil
        }
        return completeRequest()
    }

    /// Waits until the whole Content-Length body is buffered, then takes it in one copy.
    mutating func readFixedBody(_ buffer: UnsafeBufferPointer<UInt8>, length: Int) -> Step {
        guard buffer.count - readIndex >= length else { return .needMoreData }
        message.body = Array(UnsafeBufferPointer(rebasing: buffer[readIndex..<(readIndex + length)]))
        consume(through: readIndex + length)
        return completeRequest()
    }

    /// Hands out the finished request and gets ready for the next one.
    mutating func completeRequest() -> Step {
        // Swapping moves the finished message's strings and arrays out without retaining them again.
        var finished = MessageInProgress()
        swap(&finished, &message)
        var headers = HTTPHeaders(fields: fields)
        fields.removeAll(keepingCapacity: true)
        if let authority = finished.absoluteAuthority {
            // RFC 9112 §3.2.2: the target's authority replaces Host.
            headers.replaceOrAdd(name: "Host", value: authority)
        }
        // The parser split the target on bytes already; the splitting initializer is for hand-made requests.
        let request = HTTPRequest(
            method: finished.method, target: finished.target, path: finished.path, query: finished.query,
            version: finished.version, headers: headers, body: finished.body)
        state = .requestLine
        return .request(request)
    }
}

import CacheCore
import CachePolicy
import FoundationEssentials
import HTTPCore
import HTTPServer
import ImageSniffing

extension FetchHandler {
    /// The answer from a stored entry: the caller's own conditionals first (304, RFC 9110 §13.2.2), then
    /// `Range` and `Accept-Encoding` as `CacheBodyPlan` decides, with `Age`, `X-Cache`, `Cache-Status` and
    /// `X-Cache-Key`. Runs on the storage executor (it opens the body).
    /// - Throws: `CacheStoreError` when the body cannot be opened, `APIError` for an unsatisfiable range.
    func makeStoredResponse(
        _ call: Call, key: CacheKey, entry: StoredEntry, xCache: XCache, age: Int64, cacheStatus: CacheStatus
    ) throws -> HTTPResponse {
        var marks = HTTPHeaders()
        marks.reserveCapacity(Self.markNames.count)
        marks.add(name: "Age", value: String(max(0, age)))
        marks.add(name: "X-Cache", value: xCache.rawValue)
        marks.add(name: "Cache-Status", value: cacheStatus.fieldValue)
        marks.add(name: "X-Cache-Key", value: key.hex)

        if entry.status.code == 200,
            Self.callerConditionalFails(
                call.headers, responseHeaders: entry.headers,
                receivedAt: Int64(entry.responseTime.timeIntervalSince1970.rounded(.down)))
        {
            service.store.recordHit(entry.key, at: service.clock())
            return Self.notModified(entry.headers, marks: marks)
        }
        var requestHeaders = call.headers
        // RFC 9110 §14.2: Range is defined for GET; Larder applies it to the 200 representations it stores.
        if call.method != .get || entry.status.code != 200 { requestHeaders.remove(name: "Range") }
        switch CacheBodyPlan(entry: entry, requestHeaders: requestHeaders).outcome {
        case .unsatisfiable(let error):
            throw error
        case .send(let planned, let form, var headers):
            headers.replace(with: marks)
            let status = planned == .ok ? entry.status : planned
            service.store.recordHit(entry.key, at: service.clock())
            if status.forbidsContent { return HTTPResponse(status: status, headers: headers) }
            let reader = try service.store.openBody(of: entry, form: form)
            let keepsInMemory =
                (form == .identity || form == .gzip) && planned == .ok
                && service.hot.mayKeep(bodyBytes: reader.length, varyingOn: entry.varyNames)
            if reader.length <= Self.inlineBodyLimit || keepsInMemory {
                // A small body, or one the hot tier will keep, is read here, on the executor already
                // running this lookup: one hop instead of a second executor round trip per piece, and a
                // corrupt chunk still turns into a refetch rather than an aborted response.
                let body = try reader.readAll()
                if form == .identity, call.decision.validateImage, entry.imageFormat != nil {
                    try validateOnRead(body, of: entry, allowSVG: call.decision.allowSVG)
                }
                if keepsInMemory {
                    var replayed = headers
                    replayed.remove(Self.markNames)
                    // A variant of a response that varies on Accept-Encoding answers the callers its key
                    // was computed for; an entry that does not vary, those its form suits.
                    let variant =
                        entry.varyNames.isEmpty
                        ? (form == .gzip ? EncodingVariant.gzip : .identity)
                        : EncodingVariant(requestHeaders: call.headers)
                    service.hot.insert(
                        HotEntry(
                            stored: entry, facts: service.storedFacts.facts(of: entry),
                            body: body, headers: replayed,
                            variant: variant))
                }
                return HTTPResponse(status: status, headers: headers, body: .bytes(body))
            }
            let source = CacheBodySource(reader: reader, executor: service.executor)
            return HTTPResponse(status: status, headers: headers, body: .stream(source, length: source.length))
        }
    }

    /// Validates a stored image read whole, unless this body already passed in this process
    /// (`ImageReadVerdicts`).
    /// - Throws: `.corruptEntryDeleted` for an image that no longer validates (DESIGN.md: it is deleted
    ///   and refetched).
    private func validateOnRead(_ bytes: [UInt8], of entry: StoredEntry, allowSVG: Bool) throws {
        let body = ImageReadVerdicts.StoredBody(bodyID: entry.bodyID, crc32: entry.crc32, allowSVG: allowSVG)
        let validator = ImageValidator(
            limits: service.configuration.imageLimits, allowSVG: allowSVG, depth: .structure)
        guard let rejection = service.imageReads.rejection(of: bytes, body: body, validator: validator) else {
            return
        }
        service.metrics.imageValidationFailed(format: rejection.format, stage: .read)
        _ = try? service.store.delete(entry)
        throw CacheStoreError.corruptEntryDeleted(key: entry.key, reason: "image: \(rejection)")
    }

    /// The fields Larder adds to every answer from the cache, replacing any stored ones.
    static let markNames = FieldNames(["Age", "X-Cache", "Cache-Status", "X-Cache-Key"])

    /// Bodies up to this size are read whole during the lookup; larger ones are streamed.
    static let inlineBodyLimit = 1 << 20

    /// Whether the caller's `If-None-Match` (or, without it, `If-Modified-Since`) says it already has
    /// this representation (RFC 9110 §13.1.2, §13.1.3, evaluated in the order of §13.2.2).
    ///
    /// `If-Modified-Since` is compared with `Last-Modified`; without one, with the response's `Date`, and
    /// without that, with when it was received ([RFC 9111 §4.3.2](https://www.rfc-editor.org/rfc/rfc9111#section-4.3.2)).
    /// - Parameters:
    ///   - requestHeaders: the caller's request.
    ///   - responseHeaders: the response it would get.
    ///   - receivedAt: when the response was received (epoch seconds), for a response with neither field.
    static func callerConditionalFails(
        _ requestHeaders: HTTPHeaders, responseHeaders: HTTPHeaders, receivedAt: Int64? = nil
    ) -> Bool {
        if requestHeaders.contains("If-None-Match") {
            guard let condition = EntityTag.Condition(field: "If-None-Match", in: requestHeaders) else { return false }
            let current = responseHeaders["ETag"].flatMap { EntityTag(parsing: $0) }
            return !condition.ifNoneMatchPasses(current: current)
        }
        guard let since = requestHeaders["If-Modified-Since"].flatMap({ HTTPDate($0) }) else { return false }
        let modified: HTTPDate?
        if let lastModified = responseHeaders["Last-Modified"] {
            modified = HTTPDate(lastModified)
        } else {
            modified =
                responseHeaders["Date"].flatMap { HTTPDate($0) } ?? receivedAt.map { HTTPDate(secondsSinceEpoch: $0) }
        }
        guard let modified else { return false }
        return modified <= since
    }

    /// A 304 carrying the fields RFC 9110 §15.4.5 asks a 304 to repeat, plus Larder's marks.
    static func notModified(_ responseHeaders: HTTPHeaders, marks: HTTPHeaders) -> HTTPResponse {
        var headers = HTTPHeaders()
        for name in ["Cache-Control", "Content-Location", "ETag", "Expires", "Last-Modified", "Vary"] {
            for value in responseHeaders.values(for: name) { headers.add(name: name, value: value) }
        }
        for field in marks { headers.add(field) }
        return HTTPResponse(status: .notModified, headers: headers)
    }
}

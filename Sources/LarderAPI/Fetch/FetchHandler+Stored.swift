import CacheCore
import CachePolicy
import FoundationEssentials
import HTTPCore
import HTTPServer
import ImageSniffing

extension FetchHandler {
    /// The answer from a stored entry: the caller's own conditionals first (304, RFC 9110 §13.2.2), then
    /// `Range` and `Accept-Encoding` as `CacheBodyPlan` decides, with `Age`, `X-Cache`, `Cache-Status` and
    /// `X-Cache-Key`. A plain request for a 200 (no range, no conditional) gets its head from
    /// `StoredHeadMemo` (`plainStoredResponse`). Runs on the storage executor (it opens the body).
    /// - Throws: `CacheStoreError` when the body cannot be opened, `APIError` for an unsatisfiable range.
    func makeStoredResponse(
        _ call: Call, key: CacheKey, entry: StoredEntry, xCache: XCache, age: Int64, cacheStatus: CacheStatus
    ) throws -> HTTPResponse {
        let fields = Self.scanFields(call.headers)
        if entry.status.code == 200 && !fields.needsTheStore {
            let acceptsGzip = fields.hasAcceptEncoding && AcceptEncoding(call.headers).acceptsGzip
            return try plainStoredResponse(
                call, key: key, entry: entry, form: CacheBodyPlan.wholeBodyForm(of: entry, acceptsGzip: acceptsGzip),
                xCache: xCache, age: age, cacheStatus: cacheStatus)
        }
        let marks = Self.marks(key: key, xCache: xCache, age: age, cacheStatus: cacheStatus)
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
            let body = try storedBody(
                call, entry: entry, reader: reader, form: form, whole: planned == .ok, replayed: headers)
            return HTTPResponse(status: status, headers: headers, body: body)
        }
    }

    /// The answer to a plain request (no range, no conditional, nothing `fieldsNeedingTheStore` names) for a
    /// stored 200: the whole body in `form`, the one the caller accepts, after a head that `storedHeads`
    /// keeps for the rest of the second. The head is what the full path would write: the same plan and
    /// marks, serialized once.
    private func plainStoredResponse(
        _ call: Call, key: CacheKey, entry: StoredEntry, form: CacheBodyForm, xCache: XCache, age: Int64,
        cacheStatus: CacheStatus
    ) throws -> HTTPResponse {
        service.store.recordHit(entry.key, at: service.clock())
        let reader = try service.store.openBody(of: entry, form: form)
        let slot = StoredHeadMemo.Slot(
            key: key, bodyID: entry.bodyID, gzip: form == .gzip, xCache: xCache, age: max(0, age),
            cacheStatus: cacheStatus, dateSecond: HTTPResponse.currentDateSecond())
        let head = service.storedHeads.head(for: slot, storedHeaders: entry.headers) {
            var headers = CacheBodyPlan.wholeBodyFields(of: entry, form: form)
            headers.replace(with: Self.marks(key: key, xCache: xCache, age: age, cacheStatus: cacheStatus))
            var bytes: [UInt8] = []
            bytes.reserveCapacity(512)
            HTTPResponse(status: entry.status, headers: headers).serializeFields(
                into: &bytes, framing: .contentLength(reader.length))
            return bytes
        }
        let body = try storedBody(
            call, entry: entry, reader: reader, form: form, whole: true,
            replayed: CacheBodyPlan.wholeBodyFields(of: entry, form: form))
        return HTTPResponse(preparedHead: head, status: entry.status, body: body, headers: Self.xCacheFields(xCache))
    }

    /// The body after a stored head: read whole (validated when it is an image; kept in the memory tier when
    /// it may be) up to `inlineBodyLimit`, streamed beyond it.
    /// - Parameters:
    ///   - whole: whether it is the whole body in identity or gzip form (not a range), which the memory
    ///     tier may keep.
    ///   - replayed: the fields sent with it, with or without the marks (the memory tier keeps them without).
    private func storedBody(
        _ call: Call, entry: StoredEntry, reader: any CacheBodyReader, form: CacheBodyForm, whole: Bool,
        replayed: @autoclosure () -> HTTPHeaders
    ) throws -> HTTPResponseBody {
        let keepsInMemory =
            whole && (form == .identity || form == .gzip)
            && service.hot.admits(entry.key, bodyBytes: reader.length, varyingOn: entry.varyNames)
        guard reader.length <= Self.inlineBodyLimit || keepsInMemory else {
            let source = CacheBodySource(reader: reader, executor: service.executor)
            return .stream(source, length: source.length)
        }
        // A small body, or one the hot tier will keep, is read here, on the executor already running this
        // lookup: one hop instead of a second executor round trip per piece, and a corrupt chunk still
        // turns into a refetch rather than an aborted response.
        let body = try reader.readAll()
        if form == .identity, call.decision.validateImage, entry.imageFormat != nil {
            try validateOnRead(body, of: entry, allowSVG: call.decision.allowSVG)
        }
        if keepsInMemory {
            var kept = replayed()
            kept.remove(Self.markNames)
            // A variant of a response that varies on Accept-Encoding answers the callers its key was
            // computed for; an entry that does not vary, those its form suits.
            let variant =
                entry.varyNames.isEmpty
                ? (form == .gzip ? EncodingVariant.gzip : .identity)
                : EncodingVariant(requestHeaders: call.headers)
            service.hot.insert(
                HotEntry(
                    stored: entry, facts: service.storedFacts.facts(of: entry), body: body, headers: kept,
                    variant: variant))
        }
        return .bytes(body)
    }

    /// Larder's marks on an answer from the cache.
    private static func marks(key: CacheKey, xCache: XCache, age: Int64, cacheStatus: CacheStatus) -> HTTPHeaders {
        var marks = HTTPHeaders()
        marks.reserveCapacity(Self.markNames.count)
        marks.add(name: "Age", value: String(max(0, age)))
        marks.add(name: "X-Cache", value: xCache.rawValue)
        marks.add(name: "Cache-Status", value: cacheStatus.fieldValue)
        marks.add(name: "X-Cache-Key", value: key.hex)
        return marks
    }

    /// The one field an answer with a prepared head carries besides it (what the access log reads): a
    /// list made once for each value that a stored answer may carry.
    static func xCacheFields(_ xCache: XCache) -> HTTPHeaders {
        switch xCache {
        case .hit: hitFields
        case .stale: staleFields
        default: HTTPHeaders([("X-Cache", xCache.rawValue)])
        }
    }

    private static let hitFields = HTTPHeaders([("X-Cache", XCache.hit.rawValue)])
    private static let staleFields = HTTPHeaders([("X-Cache", XCache.stale.rawValue)])

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

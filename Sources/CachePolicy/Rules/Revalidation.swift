public import HTTPCore

/// Validating a stored response with the origin,
/// [RFC 9111 §4.3](https://www.rfc-editor.org/rfc/rfc9111#section-4.3). Entity tags are HTTPCore's
/// `EntityTag`, compared as RFC 9110 §8.8.3.2 says.
public enum Revalidation {
    /// Fields a 304 never changes in a stored response (§3.2, §4.3.4): `Content-Length` (the stored
    /// body's length), `Content-Range`, and the ones the stored bytes and their admission depend on:
    /// `Content-Encoding` (the stored coding) and `Content-Type` (the filter's content-type rule and
    /// image validation were decided on it). Hop-by-hop, proxy and Larder fields are excluded too.
    public static let fieldsNeverUpdated: Set<String> = [
        "content-length", "content-range", "content-encoding", "content-type",
        // An entry's tags are fixed when it is stored (`EntryTags`): a 304 does not re-tag it, and its
        // tag fields must not reach callers through the stored headers either.
        "surrogate-key", "cache-tag",
    ]

    /// What an origin's answer to a validation request means (§4.3.3).
    public enum Outcome: Sendable, Equatable {
        /// 304: freshen the stored response (``mergeNotModified(stored:notModified:)``) and serve it.
        case freshen
        /// A full response: serve it, and store it in place of the old one if ``Storability`` allows.
        case replace
        /// A 5xx: relay it, or serve the stored response if ``StaleIfError`` allows.
        case originError
    }

    /// Classifies the status of the origin's answer to a conditional request (§4.3.3).
    ///
    /// - Parameter status: The origin's status code.
    /// - Returns: What to do with the stored response.
    public static func outcome(ofValidationStatus status: Int) -> Outcome {
        switch status {
        case 304: .freshen
        case 500...599: .originError
        default: .replace
        }
    }

    /// The conditional fields for validating a stored response (§4.3.1): `If-None-Match` with its
    /// entity tag, `If-Modified-Since` with its `Last-Modified` date.
    ///
    /// - Parameter stored: The stored response.
    /// - Returns: Zero, one or two fields; empty when the response has no usable validator.
    public static func conditionalHeaders(for stored: ResponseFacts) -> HTTPHeaders {
        let usable = validators(of: stored)
        var headers = HTTPHeaders()
        if let etag = usable.etag {
            headers.add(name: "If-None-Match", value: Substring(etag).trimmingHTTPWhitespace())
        }
        if let modified = usable.lastModified {
            headers.add(name: "If-Modified-Since", value: Substring(modified).trimmingHTTPWhitespace())
        }
        return headers
    }

    /// Whether a stored response carries a validator a conditional request can use.
    ///
    /// - Parameter stored: The stored response.
    /// - Returns: `true` when ``conditionalHeaders(for:)`` is not empty.
    public static func hasValidator(_ stored: ResponseFacts) -> Bool {
        // Without building the fields, and `Last-Modified` parsed only when no usable `ETag` answers: every
        // miss asks, and a date's parse is about 1 500 instructions (callgrind).
        usableETag(of: stored) != nil || usableLastModified(of: stored) != nil
    }

    /// The stored `ETag` when it parses as an entity tag, and `Last-Modified` when it parses as a date.
    private static func validators(of stored: ResponseFacts) -> (etag: String?, lastModified: String?) {
        (usableETag(of: stored), usableLastModified(of: stored))
    }

    /// The stored `ETag` when it parses as an entity tag.
    private static func usableETag(of stored: ResponseFacts) -> String? {
        stored.headers["ETag"].flatMap { EntityTag(parsing: $0) != nil ? $0 : nil }
    }

    /// The stored `Last-Modified` when it parses as a date.
    private static func usableLastModified(of stored: ResponseFacts) -> String? {
        stored.headers["Last-Modified"].flatMap { HTTPDate($0) != nil ? $0 : nil }
    }

    /// The stored header section updated by a 304 (§3.2, §4.3.4): each field the 304 carries
    /// replaces all stored lines of that name; the others are kept; ``fieldsNeverUpdated``,
    /// hop-by-hop (also those the 304's `Connection` names), proxy and Larder fields are ignored.
    ///
    /// - Parameters:
    ///   - stored: The stored header section.
    ///   - notModified: The 304's header section.
    /// - Returns: The header section to store.
    public static func mergeNotModified(stored: HTTPHeaders, notModified: HTTPHeaders) -> HTTPHeaders {
        let options = notModified.connectionOptions
        var updates: [String: [String]] = [:]
        var updateOrder: [String] = []
        for field in notModified {
            let lowered = field.name.lowercased()
            guard HeaderFilter.isStorable(lowered, connectionOptions: options),
                !fieldsNeverUpdated.contains(lowered)
            else { continue }
            if updates[lowered] == nil { updateOrder.append(lowered) }
            updates[lowered, default: []].append(field.value)
        }
        var merged: [(String, String)] = []
        var written: Set<String> = []
        for field in stored {
            let lowered = field.name.lowercased()
            guard let values = updates[lowered] else {
                merged.append((field.name, field.value))
                continue
            }
            // The stored field's position is kept; its lines are replaced by the 304's.
            if written.insert(lowered).inserted {
                merged.append(contentsOf: values.map { (field.name, $0) })
            }
        }
        for name in updateOrder where !written.contains(name) {
            let spelled = notModified.first { $0.name.lowercased() == name }?.name ?? name
            merged.append(contentsOf: updates[name, default: []].map { (spelled, $0) })
        }
        return HTTPHeaders(merged)
    }

    /// Freshens the one stored response a cache-generated conditional request was built from (§4.3.4).
    ///
    /// The 304 updates it when its validator selects it (``responsesToUpdate(notModified:candidates:)``)
    /// or when the 304 carries no validator at all: Larder's request was conditional on exactly this
    /// response, so a bare 304 can only refer to it (§4.3.4's third rule is stricter, written for
    /// client-made conditionals; origins that omit `ETag` on 304 are common). A 304 without a valid
    /// `Date` stamps the refreshed response with `responseTime`.
    ///
    /// - Parameters:
    ///   - stored: The stored response the conditional fields came from.
    ///   - notModified: The 304's header section.
    ///   - requestTime: When the conditional request was sent.
    ///   - responseTime: When the 304 was received.
    /// - Returns: The refreshed facts, or `nil` when the 304's validator names another representation
    ///   (then fetch the full response).
    public static func freshen(
        stored: ResponseFacts,
        notModified: HTTPHeaders,
        requestTime: Int64,
        responseTime: Int64
    ) -> ResponseFacts? {
        let hasValidator = notModified.contains("ETag") || notModified.contains("Last-Modified")
        guard !hasValidator || responsesToUpdate(notModified: notModified, candidates: [stored]) == [0] else {
            return nil
        }
        var headers = mergeNotModified(stored: stored.headers, notModified: notModified)
        if notModified["Date"].flatMap({ HTTPDate($0) }) == nil {
            // RFC 9110 §6.6.1: a response cached without a Date gets its receive time; keeping the
            // old Date would count the whole stored lifetime as apparent age.
            headers.replaceOrAdd(name: "Date", value: HTTPDate(secondsSinceEpoch: responseTime).imfFixdate)
        }
        return stored.refreshed(headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    /// Chooses which stored responses a 304 updates (§4.3.4).
    ///
    /// A strong entity tag in the 304 selects every stored response with the same strong tag; a weak
    /// tag (or only a `Last-Modified`) selects the most recently received response that matches it;
    /// a 304 without validators selects the only stored response when that one has none either.
    ///
    /// - Parameters:
    ///   - notModified: The 304's header section.
    ///   - candidates: The stored responses for the request's key (variants included).
    /// - Returns: Indices into `candidates`; empty when the 304 updates nothing.
    public static func responsesToUpdate(notModified: HTTPHeaders, candidates: [ResponseFacts]) -> [Int] {
        let newTag = notModified["ETag"].flatMap { EntityTag(parsing: $0) }
        if let newTag, !newTag.isWeak {
            return candidates.indices.filter { index in
                candidates[index].headers["ETag"].flatMap { EntityTag(parsing: $0) }?.matchesStrongly(newTag) ?? false
            }
        }
        let newModified = notModified["Last-Modified"].flatMap { HTTPDate($0) }
        if newTag != nil || newModified != nil {
            let matching = candidates.indices.filter { index in
                let storedTag = candidates[index].headers["ETag"].flatMap { EntityTag(parsing: $0) }
                if let newTag { return storedTag?.matchesWeakly(newTag) ?? false }
                return candidates[index].headers["Last-Modified"].flatMap { HTTPDate($0) } == newModified
            }
            return matching.max { candidates[$0].responseTime < candidates[$1].responseTime }.map { [$0] } ?? []
        }
        if candidates.count == 1, !hasValidator(candidates[0]) { return [0] }
        return []
    }
}

public import FoundationEssentials
public import HTTPCore

/// The metadata of one cached response: everything needed to replay it, judge its freshness (RFC 9111
/// §4.2) and show it on `/cache/<key>/meta`. The body is read separately through a `CacheBodyReader`.
///
/// Redirects (301, 302, 307, 308) are ordinary entries; their `Location` is among `headers`.
public struct StoredEntry: Sendable, Equatable {
    /// The fields, in one box shared by copies until one of them changes (copy on write): a hit passes its
    /// entry through the lookup, the policy and the answer, and copying and releasing some 25 fields (ten
    /// of them references) each time cost about 3 500 instructions of a hit from the store (callgrind;
    /// docs/ARCHITECTURE.md, "A stored entry is one reference, copied on write").
    private var box: Box

    /// Every stored field (`Equatable` field by field).
    struct Fields: Equatable {
        var key: CacheKey
        var url: String
        var status: HTTPStatus
        var headers: HTTPHeaders
        var varyNames: [String]
        var requestTime: Date
        var responseTime: Date
        var date: Date?
        var ageReceived: Int
        var freshnessLifetime: Double
        var staleAllowance: Double
        var filterName: String?
        var imageFormat: String?
        var declaredContentType: String?
        var tags: [String] = []
        var staleSince: Date?
        var originalSize: Int
        var storedSize: Int
        var codec: BodyCodec
        var crc32: UInt32
        var chunkSize: Int
        var hitCount: Int
        var lastAccess: Date
        var created: Date
        var bodyID: Int64
    }

    /// The box: only ever changed while this value holds the one reference (`makeUnique()`), which is
    /// what makes sharing it between threads sound, and what makes the runtime's exclusivity check on
    /// each access redundant: with it, reading a field through the box cost what the copies saved.
    final class Box: @unchecked Sendable {
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// Gives this value a box of its own before a change.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
    }

    public static func == (lhs: StoredEntry, rhs: StoredEntry) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    /// The key the entry is stored under (primary or secondary, see `CacheKey`).
    public var key: CacheKey {
        get { box.fields.key }
        _modify {
            makeUnique()
            yield &box.fields.key
        }
    }
    /// The canonical URL the key was computed from.
    public var url: String {
        get { box.fields.url }
        _modify {
            makeUnique()
            yield &box.fields.url
        }
    }
    /// The response status.
    public var status: HTTPStatus {
        get { box.fields.status }
        _modify {
            makeUnique()
            yield &box.fields.status
        }
    }
    /// The stored end-to-end response headers, replayed on hits (`Content-Type` with its charset among them).
    public var headers: HTTPHeaders {
        get { box.fields.headers }
        _modify {
            makeUnique()
            yield &box.fields.headers
        }
    }
    /// The request header names the response's `Vary` lists (lower-cased); empty when it does not vary.
    public var varyNames: [String] {
        get { box.fields.varyNames }
        _modify {
            makeUnique()
            yield &box.fields.varyNames
        }
    }
    /// When the request that produced the response was sent (RFC 9111 §4.2.3 `request_time`).
    public var requestTime: Date {
        get { box.fields.requestTime }
        _modify {
            makeUnique()
            yield &box.fields.requestTime
        }
    }
    /// When the response was received (RFC 9111 §4.2.3 `response_time`).
    public var responseTime: Date {
        get { box.fields.responseTime }
        _modify {
            makeUnique()
            yield &box.fields.responseTime
        }
    }
    /// The response's `Date` header, when it had a valid one.
    public var date: Date? {
        get { box.fields.date }
        _modify {
            makeUnique()
            yield &box.fields.date
        }
    }
    /// The response's `Age` header in seconds, 0 when absent (RFC 9111 §5.1).
    public var ageReceived: Int {
        get { box.fields.ageReceived }
        _modify {
            makeUnique()
            yield &box.fields.ageReceived
        }
    }
    /// The freshness lifetime in seconds decided by policy (RFC 9111 §4.2.1).
    public var freshnessLifetime: Double {
        get { box.fields.freshnessLifetime }
        _modify {
            makeUnique()
            yield &box.fields.freshnessLifetime
        }
    }
    /// How long past expiry the entry may still be served stale (stale-if-error, stale-while-revalidate);
    /// the sweep deletes it only after that.
    public var staleAllowance: Double {
        get { box.fields.staleAllowance }
        _modify {
            makeUnique()
            yield &box.fields.staleAllowance
        }
    }
    /// The name of the filter that admitted the response, `nil` for the default policy.
    public var filterName: String? {
        get { box.fields.filterName }
        _modify {
            makeUnique()
            yield &box.fields.filterName
        }
    }
    /// The image format sniffed on admission (e.g. "png"), `nil` when not an image or not sniffed.
    public var imageFormat: String? {
        get { box.fields.imageFormat }
        _modify {
            makeUnique()
            yield &box.fields.imageFormat
        }
    }
    /// The `Content-Type` the origin declared, kept when Larder serves another one: the type sniffed from
    /// the image bytes wins (`headers` then holds the sniffed type). `nil` when `headers` holds the
    /// origin's own `Content-Type`; empty when the origin sent none and the sniffed type was added.
    public var declaredContentType: String? {
        get { box.fields.declaredContentType }
        _modify {
            makeUnique()
            yield &box.fields.declaredContentType
        }
    }
    /// The entry's tags (surrogate keys): what the origin's `Surrogate-Key` and `Cache-Tag` fields and the
    /// admitting filter's `tags` named, bounded (`EntryTags`); `DELETE /cache?tag=` purges by them.
    public var tags: [String] {
        get { box.fields.tags }
        _modify {
            makeUnique()
            yield &box.fields.tags
        }
    }
    /// When a soft purge (or a purge that ran while the body was being written) made the entry stale:
    /// from then on it is never served as fresh, only revalidated or served stale under the offline
    /// rules. `nil` for an entry no purge touched; a revalidation (304) clears it.
    public var staleSince: Date? {
        get { box.fields.staleSince }
        _modify {
            makeUnique()
            yield &box.fields.staleSince
        }
    }

    /// The body length in bytes as received (identity); set by the store at commit.
    public internal(set) var originalSize: Int {
        get { box.fields.originalSize }
        _modify {
            makeUnique()
            yield &box.fields.originalSize
        }
    }
    /// The bytes the body takes in the store; set by the store at commit.
    public internal(set) var storedSize: Int {
        get { box.fields.storedSize }
        _modify {
            makeUnique()
            yield &box.fields.storedSize
        }
    }
    /// How the body is stored; set by the store at commit.
    public internal(set) var codec: BodyCodec {
        get { box.fields.codec }
        _modify {
            makeUnique()
            yield &box.fields.codec
        }
    }
    /// The CRC-32 (ISO-HDLC, as gzip's trailer) of the identity body; set by the store at commit.
    public internal(set) var crc32: UInt32 {
        get { box.fields.crc32 }
        _modify {
            makeUnique()
            yield &box.fields.crc32
        }
    }
    /// The uncompressed size of every chunk but the last; set by the store at commit.
    public internal(set) var chunkSize: Int {
        get { box.fields.chunkSize }
        _modify {
            makeUnique()
            yield &box.fields.chunkSize
        }
    }
    /// How many times the entry was served; maintained by the store.
    public internal(set) var hitCount: Int {
        get { box.fields.hitCount }
        _modify {
            makeUnique()
            yield &box.fields.hitCount
        }
    }
    /// When the entry was last served or stored; maintained by the store (eviction spares an entry used
    /// since its hand's previous lap).
    public internal(set) var lastAccess: Date {
        get { box.fields.lastAccess }
        _modify {
            makeUnique()
            yield &box.fields.lastAccess
        }
    }
    /// When the entry was committed.
    public internal(set) var created: Date {
        get { box.fields.created }
        _modify {
            makeUnique()
            yield &box.fields.created
        }
    }
    /// Which stored body this metadata belongs to; a store's private handle, kept so that a body
    /// reader opened from this value never mixes in the body of a later replacement.
    public internal(set) var bodyID: Int64 {
        get { box.fields.bodyID }
        _modify {
            makeUnique()
            yield &box.fields.bodyID
        }
    }

    /// Describes a response about to be stored; the store fills sizes, codec, checksum and dates at commit.
    /// - Parameters:
    ///   - key: the key computed with `CacheKey.make`.
    ///   - url: the canonical URL.
    ///   - status: the response status.
    ///   - headers: the end-to-end headers to replay.
    ///   - varyNames: the names the response's `Vary` lists.
    ///   - requestTime: when the request was sent.
    ///   - responseTime: when the response arrived.
    ///   - date: the response's `Date`.
    ///   - ageReceived: the response's `Age`.
    ///   - freshnessLifetime: seconds of freshness decided by policy.
    ///   - staleAllowance: seconds it may be served stale after that.
    ///   - filterName: the admitting filter.
    ///   - imageFormat: the sniffed image format.
    ///   - declaredContentType: the origin's `Content-Type` when `headers` carries the sniffed one instead.
    public init(
        key: CacheKey, url: String, status: HTTPStatus, headers: HTTPHeaders, varyNames: [String] = [],
        requestTime: Date, responseTime: Date, date: Date? = nil, ageReceived: Int = 0,
        freshnessLifetime: Double, staleAllowance: Double = 0, filterName: String? = nil,
        imageFormat: String? = nil, declaredContentType: String? = nil
    ) {
        box = Box(
            Fields(
                key: key, url: url, status: status, headers: headers, varyNames: varyNames.map { $0.lowercased() },
                requestTime: requestTime, responseTime: responseTime, date: date, ageReceived: ageReceived,
                freshnessLifetime: freshnessLifetime, staleAllowance: staleAllowance, filterName: filterName,
                imageFormat: imageFormat, declaredContentType: declaredContentType, originalSize: 0, storedSize: 0,
                codec: .identity, crc32: 0, chunkSize: 0, hitCount: 0, lastAccess: responseTime,
                created: responseTime, bodyID: 0))
    }

    /// The `ETag` validator, if the response had one (RFC 9110 §8.8.3).
    public var etag: String? { headers["ETag"] }
    /// The `Last-Modified` validator, if the response had one (RFC 9110 §8.8.2).
    public var lastModified: String? { headers["Last-Modified"] }
    /// The `Content-Type` field value, with its parameters (charset).
    public var contentType: String? { headers["Content-Type"] }
    /// The `Content-Type` the origin sent: `declaredContentType` when Larder replaced it, else the stored
    /// one; `nil` when the origin sent none.
    public var originContentType: String? {
        guard let declaredContentType else { return contentType }
        return declaredContentType.isEmpty ? nil : declaredContentType
    }
    /// The media type alone, lower-cased, without parameters (`text/html`).
    public var mediaType: String? { Self.mediaType(of: contentType) }

    /// The media type of a `Content-Type` value: lower-cased, without parameters.
    /// - Parameter contentType: the field value, if any.
    /// - Returns: e.g. `image/png`; `nil` when there is no value.
    public static func mediaType(of contentType: String?) -> String? {
        guard var contentType else { return nil }
        // On the UTF-8 bytes in place: it runs on every stored miss, and splitting Characters cost about
        // 12 000 instructions, a copy of the bytes to an array and back 1 900.
        return contentType.withUTF8 { bytes in
            let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end, isWhitespace(bytes[start]) { start += 1 }
            while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
            return String(asciiLowercasing: bytes[start..<end])
        }
    }
    /// The `Location` of a redirect.
    public var location: String? { headers["Location"] }
    /// The host part of `url`, lower-cased (what purge and list by host compare against).
    public var host: String { CacheEntryQuery.host(of: url) }
    /// The primary key: the URL alone, under which the `Vary` names are recorded.
    public var primaryKey: CacheKey { CacheKey.make(canonicalURL: url) }

    /// The corrected initial age of RFC 9111 §4.2.3, in seconds.
    public var correctedInitialAge: Double {
        let apparentAge = max(0, responseTime.timeIntervalSince(date ?? responseTime))
        let responseDelay = responseTime.timeIntervalSince(requestTime)
        return max(apparentAge, Double(ageReceived) + responseDelay)
    }

    /// The current age at `now` (RFC 9111 §4.2.3).
    /// - Parameter now: the clock's time.
    /// - Returns: seconds.
    public func currentAge(at now: Date) -> Double {
        correctedInitialAge + now.timeIntervalSince(responseTime)
    }

    /// When the entry stops being fresh: `response_time + freshness_lifetime - corrected_initial_age`.
    public var expires: Date { responseTime.addingTimeInterval(freshnessLifetime - correctedInitialAge) }

    /// When the sweep may delete the entry: expiry plus the stale allowance.
    public var sweepAfter: Date { expires.addingTimeInterval(staleAllowance) }
}

extension StoredEntry {
    /// Fills the fields a store owns; for `CacheStore` implementations.
    /// - Parameters:
    ///   - body: what the writer measured.
    ///   - bodyID: the store's handle of the body.
    ///   - now: the commit time (created and last access).
    public mutating func setStoredBody(_ body: StoredBodyFacts, bodyID: Int64, now: Date) {
        originalSize = body.originalSize
        storedSize = body.storedSize
        codec = body.codec
        crc32 = body.crc32
        chunkSize = body.chunkSize
        self.bodyID = bodyID
        hitCount = 0
        created = now
        lastAccess = now
    }

    /// Sets the usage fields read back from a store; for `CacheStore` implementations.
    /// - Parameters:
    ///   - hitCount: hits so far.
    ///   - lastAccess: last time served.
    ///   - created: commit time.
    public mutating func setUsage(hitCount: Int, lastAccess: Date, created: Date) {
        self.hitCount = hitCount
        self.lastAccess = lastAccess
        self.created = created
    }
}

/// What a body writer measured: for `CacheStore` implementations filling a `StoredEntry`.
public struct StoredBodyFacts: Sendable, Equatable {
    /// Identity length.
    public var originalSize: Int
    /// Bytes kept.
    public var storedSize: Int
    /// How they are kept.
    public var codec: BodyCodec
    /// CRC-32 of the identity bytes.
    public var crc32: UInt32
    /// Uncompressed chunk size.
    public var chunkSize: Int

    /// Creates the facts.
    public init(originalSize: Int, storedSize: Int, codec: BodyCodec, crc32: UInt32, chunkSize: Int) {
        self.originalSize = originalSize
        self.storedSize = storedSize
        self.codec = codec
        self.crc32 = crc32
        self.chunkSize = chunkSize
    }
}

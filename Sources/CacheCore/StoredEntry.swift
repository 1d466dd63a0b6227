public import FoundationEssentials
public import HTTPCore

/// The metadata of one cached response: everything needed to replay it, judge its freshness (RFC 9111
/// §4.2) and show it on `/cache/<key>/meta`. The body is read separately through a `CacheBodyReader`.
///
/// Redirects (301, 302, 307, 308) are ordinary entries; their `Location` is among `headers`.
public struct StoredEntry: Sendable, Equatable {
    /// The key the entry is stored under (primary or secondary, see `CacheKey`).
    public var key: CacheKey
    /// The canonical URL the key was computed from.
    public var url: String
    /// The response status.
    public var status: HTTPStatus
    /// The stored end-to-end response headers, replayed on hits (`Content-Type` with its charset among them).
    public var headers: HTTPHeaders
    /// The request header names the response's `Vary` lists (lower-cased); empty when it does not vary.
    public var varyNames: [String]
    /// When the request that produced the response was sent (RFC 9111 §4.2.3 `request_time`).
    public var requestTime: Date
    /// When the response was received (RFC 9111 §4.2.3 `response_time`).
    public var responseTime: Date
    /// The response's `Date` header, when it had a valid one.
    public var date: Date?
    /// The response's `Age` header in seconds, 0 when absent (RFC 9111 §5.1).
    public var ageReceived: Int
    /// The freshness lifetime in seconds decided by policy (RFC 9111 §4.2.1).
    public var freshnessLifetime: Double
    /// How long past expiry the entry may still be served stale (stale-if-error, stale-while-revalidate);
    /// the sweep deletes it only after that.
    public var staleAllowance: Double
    /// The name of the filter that admitted the response, `nil` for the default policy.
    public var filterName: String?
    /// The image format sniffed on admission (e.g. "png"), `nil` when not an image or not sniffed.
    public var imageFormat: String?
    /// The `Content-Type` the origin declared, kept when Larder serves another one: the type sniffed from
    /// the image bytes wins (`headers` then holds the sniffed type). `nil` when `headers` holds the
    /// origin's own `Content-Type`; empty when the origin sent none and the sniffed type was added.
    public var declaredContentType: String?
    /// The entry's tags (surrogate keys): what the origin's `Surrogate-Key` and `Cache-Tag` fields and the
    /// admitting filter's `tags` named, bounded (`EntryTags`); `DELETE /cache?tag=` purges by them.
    public var tags: [String] = []
    /// When a soft purge (or a purge that ran while the body was being written) made the entry stale:
    /// from then on it is never served as fresh, only revalidated or served stale under the offline
    /// rules. `nil` for an entry no purge touched; a revalidation (304) clears it.
    public var staleSince: Date?

    /// The body length in bytes as received (identity); set by the store at commit.
    public internal(set) var originalSize: Int
    /// The bytes the body takes in the store; set by the store at commit.
    public internal(set) var storedSize: Int
    /// How the body is stored; set by the store at commit.
    public internal(set) var codec: BodyCodec
    /// The CRC-32 (ISO-HDLC, as gzip's trailer) of the identity body; set by the store at commit.
    public internal(set) var crc32: UInt32
    /// The uncompressed size of every chunk but the last; set by the store at commit.
    public internal(set) var chunkSize: Int
    /// How many times the entry was served; maintained by the store.
    public internal(set) var hitCount: Int
    /// When the entry was last served or stored; maintained by the store (eviction spares an entry used
    /// since its hand's previous lap).
    public internal(set) var lastAccess: Date
    /// When the entry was committed.
    public internal(set) var created: Date
    /// Which stored body this metadata belongs to; a store's private handle, kept so that a body
    /// reader opened from this value never mixes in the body of a later replacement.
    public internal(set) var bodyID: Int64

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
        self.key = key
        self.url = url
        self.status = status
        self.headers = headers
        self.varyNames = varyNames.map { $0.lowercased() }
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.date = date
        self.ageReceived = ageReceived
        self.freshnessLifetime = freshnessLifetime
        self.staleAllowance = staleAllowance
        self.filterName = filterName
        self.imageFormat = imageFormat
        self.declaredContentType = declaredContentType
        self.originalSize = 0
        self.storedSize = 0
        self.codec = .identity
        self.crc32 = 0
        self.chunkSize = 0
        self.hitCount = 0
        self.lastAccess = responseTime
        self.created = responseTime
        self.bodyID = 0
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
        guard let contentType else { return nil }
        // On UTF-8 bytes: it runs twice per miss, and splitting Characters cost about 12 000 instructions.
        var type = contentType.utf8[...]
        if let semicolon = type.firstIndex(of: UInt8(ascii: ";")) { type = type[..<semicolon] }
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while let first = type.first, isWhitespace(first) { type = type.dropFirst() }
        while let last = type.last, isWhitespace(last) { type = type.dropLast() }
        return String(decoding: type.map(\.asciiLowercased), as: UTF8.self)
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

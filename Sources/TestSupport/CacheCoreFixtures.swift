public import CacheCore
public import Foundation
import HTTPCore

/// Factories for cache entries and bodies, shared by the CacheCore and Storage tests and the crash writer.
public enum CacheCoreFixtures {
    /// A fixed point in time, so that tests never depend on the wall clock.
    public static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    /// A stored entry for `url` with sensible defaults.
    /// - Parameters:
    ///   - url: the canonical URL.
    ///   - status: the status code.
    ///   - contentType: the `Content-Type`.
    ///   - extraHeaders: more header lines.
    ///   - varyNames: names the response varies on.
    ///   - key: the key; the URL's primary key when `nil`.
    ///   - responseTime: when it arrived.
    ///   - freshness: freshness lifetime in seconds.
    ///   - staleAllowance: stale allowance in seconds.
    /// - Returns: the entry, ready for `commit`.
    public static func makeEntry(
        url: String = "https://example.com/a.txt", status: Int = 200,
        contentType: String? = "text/plain; charset=utf-8", extraHeaders: [(String, String)] = [],
        varyNames: [String] = [], key: CacheKey? = nil, responseTime: Date = epoch, freshness: Double = 3600,
        staleAllowance: Double = 0
    ) -> StoredEntry {
        var headers = HTTPHeaders()
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        return StoredEntry(
            key: key ?? CacheKey.make(canonicalURL: url), url: url, status: HTTPStatus(code: status),
            headers: headers, varyNames: varyNames, requestTime: responseTime.addingTimeInterval(-0.5),
            responseTime: responseTime, date: responseTime, ageReceived: 0, freshnessLifetime: freshness,
            staleAllowance: staleAllowance, filterName: "test-filter", imageFormat: nil)
    }

    /// Compressible text: English-like words from a fixed list, deterministic for a seed.
    /// - Parameters:
    ///   - length: bytes.
    ///   - seed: varies the text.
    /// - Returns: the bytes.
    public static func compressibleBody(length: Int, seed: UInt64 = 1) -> [UInt8] {
        let words = [
            "cache", "larder", "entry", "chunk", "deflate", "gzip", "stream", "the", "of", "a", "key",
            "response", "header", "fresh", "stale", "origin", "store", "body", "range", "byte",
        ]
        var generator = SplitMix64(seed: seed)
        var out = [UInt8]()
        out.reserveCapacity(length + 16)
        while out.count < length {
            out.append(contentsOf: words[Int(generator.next() % UInt64(words.count))].utf8)
            out.append(generator.next() % 12 == 0 ? 0x0A : 0x20)
        }
        return Array(out.prefix(length))
    }

    /// Incompressible bytes, deterministic for a seed.
    /// - Parameters:
    ///   - length: bytes.
    ///   - seed: varies the bytes.
    /// - Returns: the bytes.
    public static func randomBody(length: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var out = [UInt8]()
        out.reserveCapacity(length + 8)
        while out.count < length {
            withUnsafeBytes(of: generator.next()) { out.append(contentsOf: $0) }
        }
        return Array(out.prefix(length))
    }

    /// The body the crash writer stores under an index, and the checker expects: its length and bytes
    /// follow from the index alone, half of them compressible.
    /// - Parameters:
    ///   - index: the entry number.
    ///   - chunkSize: the store's chunk size, so lengths straddle chunk edges.
    /// - Returns: the bytes.
    public static func crashBody(index: Int, chunkSize: Int) -> [UInt8] {
        var generator = SplitMix64(seed: UInt64(index) &+ 7)
        let length = Int(generator.next() % UInt64(4 * chunkSize + 1))
        return index % 2 == 0
            ? compressibleBody(length: length, seed: UInt64(index)) : randomBody(length: length, seed: UInt64(index))
    }

    /// The URL the crash writer stores entry `index` under.
    public static func crashURL(index: Int) -> String { "https://crash.example/entry/\(index)" }
}

/// A small deterministic generator (Steele, Lea, Flood: SplitMix64).
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// Seeds the generator.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

public import CacheCore
public import FoundationEssentials
import HTTPCore

/// The JSON forms of a stored entry: the summary line of `GET /cache` and the full record of
/// `GET /cache/<key>/meta`.
public enum CacheEntryJSON {
    /// The listing form: identity, what it is, how big, when, how used.
    /// - Parameter entry: the entry.
    /// - Returns: a JSON object.
    public static func summary(_ entry: StoredEntry) -> String {
        var object = JSONObjectWriter()
        addSummary(of: entry, to: &object)
        return object.text
    }

    /// The members of the listing form, which the meta form begins with.
    private static func addSummary(of entry: StoredEntry, to object: inout JSONObjectWriter) {
        object.add("key", entry.key.hex)
        object.add("url", entry.url)
        object.add("host", entry.host)
        object.add("status", entry.status.code)
        object.add("contentType", entry.contentType)
        object.add("storedBytes", entry.storedSize)
        object.add("originalBytes", entry.originalSize)
        object.add("codec", entry.codec.rawValue)
        object.add("created", entry.created)
        object.add("lastAccess", entry.lastAccess)
        object.add("expires", entry.expires)
        object.add("hits", entry.hitCount)
        object.add("filter", entry.filterName)
        object.add("imageFormat", entry.imageFormat)
        object.add("tags", json: JSONObjectWriter.array(entry.tags))
        object.add("staleSince", entry.staleSince)
    }

    /// The meta form: every field of the entry (the listing form's members first), plus its age and freshness
    /// at `now` (RFC 9111 §4.2).
    /// - Parameters:
    ///   - entry: the entry.
    ///   - now: the clock's time.
    /// - Returns: a JSON object.
    public static func meta(_ entry: StoredEntry, now: Date) -> String {
        let currentAge = entry.currentAge(at: now)
        let freshnessLeft = entry.freshnessLifetime - currentAge
        var object = JSONObjectWriter()
        addSummary(of: entry, to: &object)
        object.add("primaryKey", entry.primaryKey.hex)
        object.add("headers", json: headers(entry))
        object.add("varyNames", json: JSONObjectWriter.array(entry.varyNames))
        object.add("declaredContentType", entry.originContentType)
        object.add("etag", entry.etag)
        object.add("lastModified", entry.lastModified)
        object.add("chunkSize", entry.chunkSize)
        object.add("crc32", hex8(entry.crc32))
        object.add("requestTime", entry.requestTime)
        object.add("responseTime", entry.responseTime)
        object.add("date", entry.date)
        object.add("ageReceived", entry.ageReceived)
        object.add("freshnessLifetime", entry.freshnessLifetime)
        object.add("staleAllowance", entry.staleAllowance)
        object.add("currentAge", currentAge)
        object.add("freshnessLeft", freshnessLeft)
        object.add("fresh", freshnessLeft > 0)
        object.add("sweepAfter", entry.sweepAfter)
        return object.text
    }

    /// The stored header lines in order, repeats kept: `[{"name": ..., "value": ...}, ...]`.
    private static func headers(_ entry: StoredEntry) -> String {
        let lines = entry.headers.map { field in
            var line = JSONObjectWriter()
            line.add("name", field.name)
            line.add("value", field.value)
            return line.text
        }
        return "[" + lines.joined(separator: ",") + "]"
    }

    /// A CRC-32 as 8 lower-case hex digits.
    private static func hex8(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

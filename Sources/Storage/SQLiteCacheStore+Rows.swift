import CacheCore
import FoundationEssentials
import Glibc
import HTTPCore

extension SQLiteCacheStore {
    /// The columns `entry(_:)` reads, in its order: the entry row and its usage (`entry_access`, schema
    /// version 7). Conditions added to it name `entry`'s columns, qualifying `entry.id`.
    static let selectEntry = """
        SELECT entry.id, key, url, status, reason, headers, vary, request_time, response_time, date, age_received,
            freshness, stale_allowance, filter_name, image_format, original_size, stored_size, codec, crc32,
            chunk_size, access.hit_count, access.last_access, created, body_id, seq, declared_content_type,
            stale_since, tags
        FROM entry LEFT JOIN entry_access AS access ON access.id = entry.id
        """

    /// `selectEntry` for one key, the lookup every request makes (columns in `entry(_:)`'s order), with
    /// its body's first chunk (columns 28 and 29, the chunk's CRC-32 and bytes; NULL when the body has
    /// none) read in the same statement: see `FirstChunkStash`. It leaves out the usage row (columns 20
    /// and 21 are constants: never hit, last accessed when created), which serving does not need;
    /// `entry(for:)` adds it with `lookUpUsage`. The 24 is `StorageSchema.chunkIDShift` (a
    /// query is a static string; `FirstChunkStashTests` fail when the two disagree). The third parameter
    /// is 1 while purged entries may wait for the reclaimer (`purgedRowsMayExist`), which leaves them out
    /// (`entry_purged`); at 0 SQLite skips that check.
    static let lookUpEntry = SQLiteQuery(
        """
        SELECT entry.id, key, url, status, reason, headers, vary, request_time, response_time, date, age_received,
            freshness, stale_allowance, filter_name, image_format, original_size, stored_size, codec, entry.crc32,
            chunk_size, 0, NULL, created, body_id, seq, declared_content_type, stale_since, tags,
            chunk.crc32, chunk.data
        FROM entry LEFT JOIN chunk ON chunk.id = entry.body_id << 24
        WHERE entry.id = ?1 AND entry.key = ?2
            AND (?3 = 0 OR NOT EXISTS (SELECT 1 FROM entry_purged WHERE entry_purged.id = ?1))
        """)

    /// `lookUpEntry` for a primary key, with its `vary` row's names in column 30, for a URL the Vary memo
    /// does not know (`lookUpToServe(primaryKey:)`): one statement, so one read transaction, where the
    /// names and the entry took two, each with two `fcntl` calls for the WAL read lock. The one-row `probe`
    /// makes it answer a row whether or not the entry or the names exist (every entry column NULL without
    /// the entry). Its column list is `lookUpEntry`'s, written again: a query is one string literal. It
    /// stays a second statement because the probe and the join cost about 4 000 instructions, which a
    /// lookup whose names are known (nearly every hit) would pay for nothing.
    static let lookUpPrimary = SQLiteQuery(
        """
        SELECT entry.id, key, url, status, reason, headers, vary, request_time, response_time, date, age_received,
            freshness, stale_allowance, filter_name, image_format, original_size, stored_size, codec, entry.crc32,
            chunk_size, 0, NULL, created, body_id, seq, declared_content_type, stale_since, tags,
            chunk.crc32, chunk.data, vary.names
        FROM (SELECT 1) AS probe
        LEFT JOIN vary ON vary.primary_key = ?2
        LEFT JOIN entry ON entry.id = ?1 AND entry.key = ?2
            AND (?3 = 0 OR NOT EXISTS (SELECT 1 FROM entry_purged WHERE entry_purged.id = ?1))
        LEFT JOIN chunk ON chunk.id = entry.body_id << 24
        """)

    /// `lookUpEntry` for an entry the memo remembers (`SQLiteEntryMemo`): its row's body id, to tell that
    /// the row still holds that entry, and the first chunk (columns 1 and 2), with the same parameters.
    static let lookUpKnownEntry = SQLiteQuery(
        """
        SELECT entry.body_id, chunk.crc32, chunk.data
        FROM entry LEFT JOIN chunk ON chunk.id = entry.body_id << 24
        WHERE entry.id = ?1 AND entry.key = ?2
            AND (?3 = 0 OR NOT EXISTS (SELECT 1 FROM entry_purged WHERE entry_purged.id = ?1))
        """)

    /// An entry's usage row: its hit count and last access as last written (`SQLiteHitLog`).
    static let lookUpUsage = SQLiteQuery("SELECT hit_count, last_access FROM entry_access WHERE id = ?")

    /// The condition (on `entry`) that leaves out purged entries not yet reclaimed: every read but the
    /// lookup, which checks only while there may be some (`purgedRowsMayExist`), adds it.
    static let notPurged = "NOT EXISTS (SELECT 1 FROM entry_purged WHERE entry_purged.id = entry.id)"

    /// The `Vary` names recorded for a primary key.
    static let lookUpVaryNames = SQLiteQuery("SELECT names FROM vary WHERE primary_key = ?")

    /// Reads an entry from a row of `selectEntry`.
    static func entry(_ row: SQLiteStatement) throws -> StoredEntry {
        guard let key = row.withBlob(1, { CacheKey(bytes: $0) }), let codec = BodyCodec(storageCode: row.int(17)) else {
            throw SQLiteError(code: 11, message: "entry row \(row.int64(0)) has an invalid key or codec")
        }
        var entry = StoredEntry(
            key: key, url: row.text(2) ?? "", status: HTTPStatus(code: row.int(3), reasonPhrase: row.text(4)),
            headers: row.withBlob(5, decodeHeaders), varyNames: decodeNames(row.text(6) ?? ""),
            requestTime: Date(timeIntervalSince1970: row.double(7)),
            responseTime: Date(timeIntervalSince1970: row.double(8)),
            date: row.isNull(9) ? nil : Date(timeIntervalSince1970: row.double(9)), ageReceived: row.int(10),
            freshnessLifetime: row.double(11), staleAllowance: row.double(12), filterName: row.text(13),
            imageFormat: row.text(14), declaredContentType: row.text(25))
        entry.setStoredBody(
            StoredBodyFacts(
                originalSize: row.int(15), storedSize: row.int(16), codec: codec,
                crc32: UInt32(truncatingIfNeeded: row.int64(18)), chunkSize: row.int(19)),
            bodyID: row.int64(23), now: Date(timeIntervalSince1970: row.double(22)))
        // An entry without a usage row was never hit (`insert`).
        entry.setUsage(
            hitCount: row.int(20), lastAccess: Date(timeIntervalSince1970: row.double(row.isNull(21) ? 22 : 21)),
            created: Date(timeIntervalSince1970: row.double(22)))
        // Both NULL for most entries: one type check each.
        if !row.isNull(26) { entry.staleSince = Date(timeIntervalSince1970: row.double(26)) }
        if !row.isNull(27) { entry.tags = decodeTags(row.text(27) ?? "[]") }
        return entry
    }

    /// Inserts a committed entry row (the caller has deleted any previous one of the key). It gets no usage
    /// row: an entry has one from its first written hit on (`flushHits`), and until then was never hit and
    /// last used when created. A usage row written with every entry was a fourth B-tree changed at a random
    /// place by every stored miss; in a store of 200 000 entries it cost about a quarter of the insert's
    /// time (docs/ARCHITECTURE.md, "An entry gets its usage row at its first hit").
    /// - Parameters:
    ///   - entry: the entry.
    ///   - counters: where its `seq` comes from and where it is counted (written once for the transaction).
    ///   - connection: the writer connection, in a transaction.
    /// - Throws: `SQLiteError` when a statement fails.
    static func insert(
        _ entry: StoredEntry, counting counters: inout SQLiteCommitCounters, into connection: SQLiteConnection
    ) throws {
        let headers = encodeHeaders(entry.headers)
        let footprint = entry.storedSize + entry.url.utf8.count + headers.utf8.count + entryOverhead
        try connection.run(
            insertEntry,
            [
                .integer(rowID(entry.key)), .integer(counters.nextSeq()), .blob(entry.key.bytes), .text(entry.url),
                .text(entry.host),
                .optionalText(entry.mediaType),
                .int(entry.status.code), .text(entry.status.reasonPhrase), .text(headers),
                .text(encodeNames(entry.varyNames)), .real(entry.requestTime.timeIntervalSince1970),
                .real(entry.responseTime.timeIntervalSince1970),
                entry.date.map { .real($0.timeIntervalSince1970) } ?? .null, .int(entry.ageReceived),
                .real(entry.freshnessLifetime), .real(entry.staleAllowance),
                .real(entry.sweepAfter.timeIntervalSince1970), .optionalText(entry.filterName),
                .optionalText(entry.imageFormat), .int(entry.originalSize), .int(entry.storedSize),
                .int(entry.codec.storageCode), .integer(Int64(entry.crc32)), .int(entry.chunkSize),
                .real(entry.created.timeIntervalSince1970),
                .integer(entry.bodyID), .int(footprint), .optionalText(entry.declaredContentType),
                entry.staleSince.map { .real($0.timeIntervalSince1970) } ?? .null,
                entry.tags.isEmpty ? .null : .text(encodeTags(entry.tags)),
            ])
        counters.countInserted(footprint: footprint)
        // Tags only when present: an untagged entry writes no index row.
        if !entry.tags.isEmpty { try insertTags(entry.tags, of: entry.key, connection: connection) }
    }

    private static let insertEntry = SQLiteQuery(
        """
        INSERT INTO entry (id, seq, key, url, host, media_type, status, reason, headers, vary, request_time,
            response_time, date, age_received, freshness, stale_allowance, sweep_after, filter_name,
            image_format, original_size, stored_size, codec, crc32, chunk_size, hit_count, last_access,
            created, body_id, footprint, declared_content_type, stale_since, tags)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?)
        """)

    /// The rowid of an entry: the key's first 8 bytes, big-endian. Two keys sharing them (odds about
    /// n²/2^65 for n entries) cannot both be stored; the later replaces the earlier, as an eviction would.
    static func rowID(_ key: CacheKey) -> Int64 {
        Int64(bitPattern: key.leadingWord)
    }

    /// Headers as text: one `name:value` line per field, in order, separated by LF. Field names hold
    /// no colon and values no CR or LF (RFC 9110 §5.1, §5.5), so the first colon of a line splits it.
    static func encodeHeaders(_ headers: HTTPHeaders) -> String {
        // Copied into a string of the final size: `+=` of each name, colon, value and LF cost 13 000
        // instructions of every stored miss (callgrind, 12 fields), a string per field joined afterwards
        // 19 000.
        var length = max(0, headers.count - 1)
        for field in headers { length += field.name.utf8.count + 1 + field.value.utf8.count }
        return String(unsafeUninitializedCapacity: length) { buffer in
            // `length` counts exactly these bytes: the string's UTF-8 is what `utf8.count` measured. The
            // write position is a local of this closure, not one captured by nested functions: a captured
            // `var` is boxed and every access to it checked for exclusivity at run time, 5 000 instructions
            // of every stored miss (callgrind).
            guard let start = buffer.baseAddress else { return 0 }
            var next = start
            for (index, field) in headers.enumerated() {
                if index > 0 {
                    next.initialize(to: UInt8(ascii: "\n"))
                    next += 1
                }
                next = copyUTF8(of: field.name, to: next)
                next.initialize(to: UInt8(ascii: ":"))
                next += 1
                next = copyUTF8(of: field.value, to: next)
            }
            return next - start
        }
    }

    /// Copies `text`'s UTF-8 to `destination`, which has room for it.
    /// - Returns: the position after the last byte written.
    private static func copyUTF8(of text: String, to destination: UnsafeMutablePointer<UInt8>)
        -> UnsafeMutablePointer<UInt8>
    {
        var text = text
        return text.withUTF8 { bytes in
            guard let source = bytes.baseAddress else { return destination }
            destination.initialize(from: source, count: bytes.count)
            return destination + bytes.count
        }
    }

    /// The inverse of `encodeHeaders`.
    static func decodeHeaders(_ text: String) -> HTTPHeaders {
        var text = text
        return text.withUTF8 { decodeHeaders(UnsafeRawBufferPointer($0)) }
    }

    /// `decodeHeaders` on the column's bytes as SQLite holds them: one pass, each line's ends found with
    /// `memchr`, each name and value made once and the name's signature read from its bytes (hot path:
    /// every lookup).
    static func decodeHeaders(_ bytes: UnsafeRawBufferPointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(16)
        guard let base = bytes.baseAddress else { return headers }
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd =
                memchr(base + lineStart, Int32(UInt8(ascii: "\n")), bytes.count - lineStart)
                .map { UnsafeRawPointer($0) - base } ?? bytes.count
            if let found = memchr(base + lineStart, Int32(UInt8(ascii: ":")), lineEnd - lineStart) {
                let colon = UnsafeRawPointer(found) - base
                headers.add(
                    HTTPHeaders.Field(
                        name: UnsafeRawBufferPointer(rebasing: bytes[lineStart..<colon]),
                        value: UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)..<lineEnd])))
            }
            lineStart = lineEnd + 1
        }
        return headers
    }

    static func encodeNames(_ names: [String]) -> String { names.joined(separator: ",") }

    static func decodeNames(_ text: String) -> [String] {
        // On bytes: splitting the String splits Characters, which cost 7 000 instructions a lookup.
        text.utf8.split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A condition selecting URLs that start with `prefix`. An ASCII-ended prefix becomes a range on
    /// the `entry_url` index (`prefix <= url < prefix with its last byte + 1`); otherwise a scan.
    static func urlPrefixCondition(_ prefix: String) -> (sql: String, values: [SQLiteValue]) {
        var upper = Array(prefix.utf8)
        if let last = upper.last, last < 0x7F {
            upper[upper.count - 1] = last + 1
            return ("url >= ? AND url < ?", [.text(prefix), .text(String(decoding: upper, as: UTF8.self))])
        }
        return ("substr(url, 1, length(?)) = ?", [.text(prefix), .text(prefix)])
    }
}

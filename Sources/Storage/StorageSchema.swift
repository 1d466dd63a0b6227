/// The database schema and its forward migrations, versioned with `PRAGMA user_version`
/// (https://sqlite.org/pragma.html#pragma_user_version).
///
/// Migration N takes a database from version N-1 to N inside one transaction. A new database is
/// version 0 and runs them all. A database whose version is above `currentVersion` was written by a
/// newer Larder and is refused rather than guessed at.
enum StorageSchema {
    /// Chunk rows are addressed as `body_id << chunkIDShift | seq`, so one body's chunks are one
    /// contiguous rowid range of the chunk table: no second index, and a range delete drops a body.
    static let chunkIDShift: Int64 = 24
    /// At most 2^24 chunks per body (1 TiB at 64 KiB chunks).
    static let maxChunksPerBody: Int64 = 1 << chunkIDShift

    /// The migrations in order; index 0 produces version 1.
    static let migrations: [String] = [
        // Version 1: entries, bodies in chunks, vary names, filters, O(1) stats kept by triggers.
        // An entry's rowid is the first 64 bits of its key (`SQLiteCacheStore.rowID`), so a lookup is one
        // descent of the table's b-tree with no key index; `key` is still compared in full. `seq` orders
        // the newest-first listing.
        """
        CREATE TABLE entry (
            id INTEGER PRIMARY KEY,
            seq INTEGER NOT NULL,
            key BLOB NOT NULL,
            url TEXT NOT NULL,
            host TEXT NOT NULL,
            media_type TEXT,
            status INTEGER NOT NULL,
            reason TEXT NOT NULL,
            headers TEXT NOT NULL,
            vary TEXT NOT NULL,
            request_time REAL NOT NULL,
            response_time REAL NOT NULL,
            date REAL,
            age_received INTEGER NOT NULL,
            freshness REAL NOT NULL,
            stale_allowance REAL NOT NULL,
            sweep_after REAL NOT NULL,
            filter_name TEXT,
            image_format TEXT,
            original_size INTEGER NOT NULL,
            stored_size INTEGER NOT NULL,
            codec INTEGER NOT NULL,
            crc32 INTEGER NOT NULL,
            chunk_size INTEGER NOT NULL,
            hit_count INTEGER NOT NULL DEFAULT 0,
            last_access REAL NOT NULL,
            created REAL NOT NULL,
            body_id INTEGER NOT NULL,
            footprint INTEGER NOT NULL
        );
        CREATE INDEX entry_seq ON entry(seq);
        CREATE INDEX entry_lru ON entry(last_access, id);
        CREATE INDEX entry_sweep ON entry(sweep_after);
        CREATE INDEX entry_host ON entry(host, seq);
        CREATE INDEX entry_url ON entry(url);
        CREATE TABLE pending_body (id INTEGER PRIMARY KEY AUTOINCREMENT, started REAL NOT NULL);
        CREATE TABLE chunk (id INTEGER PRIMARY KEY, crc32 INTEGER NOT NULL, data BLOB NOT NULL);
        CREATE TABLE vary (primary_key BLOB PRIMARY KEY, names TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE filter (position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, json TEXT NOT NULL);
        CREATE TABLE filter_chain (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
        INSERT INTO filter_chain (id, version) VALUES (1, 0);
        CREATE TABLE stats (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            entry_count INTEGER NOT NULL,
            total_bytes INTEGER NOT NULL
        );
        INSERT INTO stats (id, entry_count, total_bytes) VALUES (1, 0, 0);
        CREATE TRIGGER entry_inserted AFTER INSERT ON entry BEGIN
            UPDATE stats SET entry_count = entry_count + 1, total_bytes = total_bytes + NEW.footprint WHERE id = 1;
        END;
        CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
            UPDATE stats SET entry_count = entry_count - 1, total_bytes = total_bytes - OLD.footprint WHERE id = 1;
            DELETE FROM chunk WHERE id BETWEEN OLD.body_id * 16777216 AND OLD.body_id * 16777216 + 16777215;
        END;
        CREATE TRIGGER entry_resized AFTER UPDATE OF footprint ON entry BEGIN
            UPDATE stats SET total_bytes = total_bytes - OLD.footprint + NEW.footprint WHERE id = 1;
        END;
        """,
        // Version 2: listing by content type walks an index instead of the table.
        """
        CREATE INDEX entry_media ON entry(media_type, seq);
        """,
        // Version 3: the origin's Content-Type when the sniffed image type replaced it in `headers`.
        """
        ALTER TABLE entry ADD COLUMN declared_content_type TEXT;
        """,
        // Version 4: tags (surrogate keys) and soft purges. `entry.tags` holds an entry's tags as a JSON
        // array, NULL when it has none; `entry_tag` indexes them, one row per tag of a tagged entry, so a
        // tag purge is a range of that index, not a scan. The trigger removes the rows with their entry
        // (through the JSON list: no second index on `entry_tag`), and only for tagged entries, so an
        // untagged entry costs no index write on insert or delete. `stale_since` is when a purge marked
        // the entry stale (`StoredEntry.staleSince`).
        """
        ALTER TABLE entry ADD COLUMN tags TEXT;
        ALTER TABLE entry ADD COLUMN stale_since REAL;
        CREATE TABLE entry_tag (tag TEXT NOT NULL, entry INTEGER NOT NULL, PRIMARY KEY (tag, entry)) WITHOUT ROWID;
        CREATE TRIGGER entry_untagged AFTER DELETE ON entry WHEN OLD.tags IS NOT NULL BEGIN
            DELETE FROM entry_tag WHERE entry = OLD.id AND tag IN (SELECT value FROM json_each(OLD.tags));
        END;
        """,
        // Version 5: the insert of an entry counts it in `stats` itself (`SQLiteCacheStore.insert`). A trigger
        // on the insert made SQLite keep a statement journal for every entry insert (a copy of each page it
        // changes, so that the trigger could fail halfway): a quarter of the insert's CPU time, measured on
        // the full schema. Deletes keep their trigger: it also removes the chunks, and most deletes are
        // the purges' and the sweep's, many rows per statement.
        """
        DROP TRIGGER entry_inserted;
        """,
        // Version 6: purges in two steps. A hard purge only records the entries it removes in `entry_purged`
        // (a few pages for thousands of entries, where deleting them changes about nine b-trees at random
        // pages each); from then on every read leaves them out, and a background reclaimer deletes them
        // (`SQLiteCacheStore+Reclaim`). Whatever deletes a purged entry's row (the reclaimer, a commit that
        // replaces it, eviction, the sweep) also removes its record, by the trigger, so a record never
        // outlives its row. `stats` counts the purged entries and their bytes until they are reclaimed.
        """
        CREATE TABLE entry_purged (id INTEGER PRIMARY KEY);
        ALTER TABLE stats ADD COLUMN purged_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE stats ADD COLUMN purged_bytes INTEGER NOT NULL DEFAULT 0;
        CREATE TRIGGER entry_reclaimed AFTER DELETE ON entry
        WHEN EXISTS (SELECT 1 FROM entry_purged WHERE id = OLD.id) BEGIN
            DELETE FROM entry_purged WHERE id = OLD.id;
            UPDATE stats SET purged_count = purged_count - 1, purged_bytes = purged_bytes - OLD.footprint WHERE id = 1;
        END;
        """,
        // Version 7: hit counts and last accesses in a narrow table of their own, `entry_access`, and no
        // index on the last access. The hit log's flush (`SQLiteHitLog`) rewrites the usage of every entry hit
        // since the last one, in transactions of consecutive rowids. In the entry table, whose rows hold
        // headers and URLs (about ten a page), a flush of random hits among a million entries changed nearly
        // every page of a 2 GB file, and each of its transactions changed pages all over `entry_lru`, whose
        // order is the old last accesses: 5.4 GB written to the WAL and back in 25 s of 15 000 hits a second
        // (Benchmarks/million). Usage rows of three numbers fit about 150 a page, and a transaction of
        // consecutive rowids changes only the pages that hold them; eviction sampled them instead of walking
        // an index (until version 8, which walks insertion order). Every entry has its row, written with the
        // entry and removed with it by the delete trigger. `entry.hit_count` and `entry.last_access` stay, unused
        // (written 0): dropping a column rewrites the whole table.
        """
        CREATE TABLE entry_access (id INTEGER PRIMARY KEY, hit_count INTEGER NOT NULL, last_access REAL NOT NULL);
        INSERT INTO entry_access (id, hit_count, last_access) SELECT id, hit_count, last_access FROM entry;
        DROP INDEX entry_lru;
        DROP TRIGGER entry_deleted;
        CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
            UPDATE stats SET entry_count = entry_count - 1, total_bytes = total_bytes - OLD.footprint WHERE id = 1;
            DELETE FROM chunk WHERE id BETWEEN OLD.body_id * 16777216 AND OLD.body_id * 16777216 + 16777215;
            DELETE FROM entry_access WHERE id = OLD.id;
        END;
        """,
        // Version 8: eviction walks insertion order (`SQLiteEvictionHand`, a CLOCK over `seq`) instead of
        // sampling random rows, and its hand is kept here, one row, so that a restart goes on where the last
        // process stopped. A store that migrates starts a lap at its oldest entry that spares every entry
        // ever hit and ends at its newest; the next spares what was used since the migration.
        """
        CREATE TABLE eviction_hand (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            position INTEGER NOT NULL,
            lap_end INTEGER NOT NULL,
            spared_since REAL NOT NULL,
            lap_started REAL NOT NULL,
            lap INTEGER NOT NULL,
            previous_lap_spared_all INTEGER NOT NULL
        );
        INSERT INTO eviction_hand (id, position, lap_end, spared_since, lap_started, lap, previous_lap_spared_all)
        SELECT 1, 0, coalesce(max(seq), 0), 0, (julianday('now') - 2440587.5) * 86400.0, 0, 0 FROM entry;
        """,
        // Version 9: the delete triggers' updates of `stats` cannot abort (`OR IGNORE`), so a delete of an entry
        // keeps no statement journal. SQLite keeps one for a statement that writes more than one b-tree and
        // may abort halfway (https://sqlite.org/tempfiles.html#statement_journal_files); the `NOT NULL` and
        // `CHECK` constraints of `stats` made every delete such a statement: a copy of each page it changed,
        // in memory, kept until the statement ended (a tenth of an eviction's instructions). The constraints
        // cannot fail here (the row is `id = 1`, and the sums are of non-null columns); a delete that fails
        // otherwise (a full disk, out of memory) rolls back its whole transaction, which every caller does
        // anyway on an error.
        """
        DROP TRIGGER entry_deleted;
        CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
            UPDATE OR IGNORE stats SET entry_count = entry_count - 1, total_bytes = total_bytes - OLD.footprint
            WHERE id = 1;
            DELETE FROM chunk WHERE id BETWEEN OLD.body_id * 16777216 AND OLD.body_id * 16777216 + 16777215;
            DELETE FROM entry_access WHERE id = OLD.id;
        END;
        DROP TRIGGER entry_reclaimed;
        CREATE TRIGGER entry_reclaimed AFTER DELETE ON entry
        WHEN EXISTS (SELECT 1 FROM entry_purged WHERE id = OLD.id) BEGIN
            DELETE FROM entry_purged WHERE id = OLD.id;
            UPDATE OR IGNORE stats SET purged_count = purged_count - 1, purged_bytes = purged_bytes - OLD.footprint
            WHERE id = 1;
        END;
        DROP TRIGGER entry_resized;
        CREATE TRIGGER entry_resized AFTER UPDATE OF footprint ON entry BEGIN
            UPDATE OR IGNORE stats SET total_bytes = total_bytes - OLD.footprint + NEW.footprint WHERE id = 1;
        END;
        """,
    ]

    /// The version this build writes.
    static var currentVersion: Int { migrations.count }

    /// Brings a database up to `currentVersion`, one migration per transaction.
    /// - Parameters:
    ///   - connection: the writer.
    ///   - targetVersion: stop at this version (tests build older databases with it).
    /// - Throws: `SQLiteSchemaTooNew` for a newer database, or `SQLiteError`.
    static func migrate(_ connection: SQLiteConnection, to targetVersion: Int = currentVersion) throws {
        let found = try connection.userVersion
        guard found <= currentVersion else { throw SQLiteSchemaTooNew(found: found, supported: currentVersion) }
        for version in found..<max(found, targetVersion) {
            try connection.inTransaction {
                try connection.execute(migrations[version])
                try connection.execute("PRAGMA user_version = \(version + 1)")
                return .commit
            }
        }
    }
}

/// A database from a newer schema version than this build knows.
struct SQLiteSchemaTooNew: Error {
    let found: Int
    let supported: Int
}

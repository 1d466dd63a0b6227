import ArgumentParser
import FoundationEssentials
import LarderApp
import Storage

/// `larder stats`: a human summary of the cache, read from the database file.
///
/// It reads the file (read-only) rather than asking the server: it works with the server stopped
/// or wedged, needs no admin token or network path, and a WAL reader sees one consistent snapshot
/// while the server writes. The price: hits the server has gathered but not yet written (a batch,
/// flushed at every sweep) are not counted yet.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Summarize the cache database: entries, size, hit ratio, top hosts.")

    // The store's own declarations, for the help of the two flags this command shares with `serve`.
    private static let store = StoreSettings()

    @Option(help: ArgumentHelp(Self.store.$databasePath.help)) var db: String?
    @Option(name: .customLong("max-size"), help: ArgumentHelp(Self.store.$maxSize.help)) var maxSize: String?
    @Option(help: "Hosts shown in each top list.") var top = 5

    func run() throws {
        let store = try StoreSettings.resolving(
            flags: [Self.store.$databasePath.flag: db, Self.store.$maxSize.flag: maxSize],
            in: ProcessInfo.processInfo.environment)
        let path = store.databasePath
        let bound = store.maxSize
        guard DatabaseFileCheck.exists(path, command: "stats", flag: db) else { throw ExitCode.failure }
        let summary: CacheDatabaseSummary
        do {
            summary = try CacheDatabaseSummary.read(path: path, topHosts: max(top, 1))
        } catch {
            print("larder stats: \(error)")
            throw ExitCode.failure
        }
        print(Self.report(summary, path: path, maxSize: bound), terminator: "")
    }

    /// The summary as aligned text.
    /// - Parameters:
    ///   - summary: what the database holds.
    ///   - path: the file, for the first line.
    ///   - maxSize: the configured bound, `nil` for none.
    /// - Returns: the report, one fact per line.
    static func report(_ summary: CacheDatabaseSummary, path: String, maxSize: Int?) -> String {
        var lines: [String] = []
        func line(_ label: String, _ value: String) {
            lines.append(TextColumns.padded(label, to: 11) + value)
        }
        line("database", "\(path) (\(bytes(summary.fileBytes)) on disk)")
        line("entries", "\(summary.entries)")
        var stored = bytes(summary.storedBytes)
        if let maxSize {
            stored += " of \(bytes(maxSize)) max (\(percent(Double(summary.storedBytes) / Double(maxSize))))"
        } else {
            stored += " (no size bound)"
        }
        line("stored", stored)
        if summary.reclaimingEntries > 0 {
            line(
                "reclaiming",
                "\(summary.reclaimingEntries) purged entries, \(bytes(summary.reclaimingBytes)) (counted in stored), "
                    + "deleted by the server in the background")
        }
        line("bodies", "\(bytes(summary.originalBodyBytes)) as the origins sent them")
        line("hit ratio", hitRatio(summary))
        line("oldest", summary.oldest.map(timestamp) ?? "-")
        line("newest", summary.newest.map(timestamp) ?? "-")
        for (title, hosts) in [("by entries", summary.topHostsByEntries), ("by bytes", summary.topHostsByBytes)] {
            lines.append("top hosts \(title):")
            let width = hosts.map(\.host.count).max() ?? 0
            for host in hosts {
                lines.append(
                    "  " + TextColumns.padded(host.host, to: width)
                        + "  \(host.entries) entries  \(bytes(host.bytes))")
            }
            if hosts.isEmpty { lines.append("  -") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The hit ratio from what the database records, labelled with its definition: each stored entry
    /// was stored by one origin fetch (a miss) and each recorded hit was served from it, so
    /// hits / (hits + entries). Bypassed and uncacheable requests, and evicted entries, are not in
    /// the file, so this is the ratio over the entries still stored, not over all traffic.
    static func hitRatio(_ summary: CacheDatabaseSummary) -> String {
        let denominator = summary.recordedHits + summary.entries
        let ratio = denominator == 0 ? "-" : percent(Double(summary.recordedHits) / Double(denominator))
        return "\(ratio) = \(summary.recordedHits) recorded hits / (hits + \(summary.entries) stores), "
            + "entries still stored only; /metrics has the ratio over all requests"
    }

    /// Bytes in binary units.
    static func bytes(_ count: Int) -> String {
        var value = Double(count)
        for unit in ["B", "KiB", "MiB", "GiB", "TiB"] {
            if value < 1024 || unit == "TiB" {
                return unit == "B" ? "\(count) B" : "\(TextColumns.oneDecimal(value)) \(unit)"
            }
            value /= 1024
        }
        return "\(count) B"
    }

    static func percent(_ fraction: Double) -> String { TextColumns.oneDecimal(fraction * 100) + "%" }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

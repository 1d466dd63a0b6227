import FoundationEssentials
import HTTPCore

/// Builds one JSON object (RFC 8259) member by member, in the order added, with every string escaped.
/// The admin API's answers are small and their member order is part of what an operator reads, so a
/// writer that keeps order beats a dictionary through `JSONSerialization`.
struct JSONObjectWriter {
    private var members: [String] = []

    /// Adds a string member, or `null` when `value` is `nil`.
    mutating func add(_ name: String, _ value: String?) {
        members.append(name.jsonQuoted + ":" + (value?.jsonQuoted ?? "null"))
    }

    /// Adds an integer member.
    mutating func add(_ name: String, _ value: Int) {
        members.append(name.jsonQuoted + ":" + String(value))
    }

    /// Adds a number member; integral values print without a fraction, non-finite ones as `null`.
    mutating func add(_ name: String, _ value: Double) {
        members.append(name.jsonQuoted + ":" + Self.number(value))
    }

    /// Adds a boolean member.
    mutating func add(_ name: String, _ value: Bool) {
        members.append(name.jsonQuoted + ":" + (value ? "true" : "false"))
    }

    /// Adds a date as RFC 3339 text in UTC, or `null`.
    mutating func add(_ name: String, _ value: Date?) {
        add(name, value.map(Self.timestamp))
    }

    /// Adds a member whose value is already JSON text (an array or object built elsewhere).
    mutating func add(_ name: String, json: String) {
        members.append(name.jsonQuoted + ":" + json)
    }

    /// The object's text.
    var text: String { "{" + members.joined(separator: ",") + "}" }

    /// A JSON number for a double.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// RFC 3339 text in UTC with whole seconds (`2027-01-15T08:00:00Z`).
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// A JSON array of strings.
    static func array(_ values: [String]) -> String {
        "[" + values.map(\.jsonQuoted).joined(separator: ",") + "]"
    }
}

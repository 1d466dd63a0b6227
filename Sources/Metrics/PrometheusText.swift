/// Writes the Prometheus text exposition format 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format): per family a
/// `# HELP` and a `# TYPE` line, then its samples, one per line, label values escaped.
///
/// ```swift
/// var text = PrometheusText()
/// text.family("larder_cache_results_total", type: .counter, help: "Answers of /fetch by X-Cache.")
/// text.sample("larder_cache_results_total", labels: [("result", "hit")], value: 3)
/// ```
///
/// A family's samples must follow its header without another family in between; the writer keeps
/// what it is given in order, so callers write one family at a time.
public struct PrometheusText: Sendable {
    /// The `Content-Type` of the format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The kind of a metric family, as the `# TYPE` line names it.
    public enum MetricType: String, Sendable {
        /// Only ever increases (resets to 0 on restart); names end in `_total`.
        case counter
        /// A value that goes up and down.
        case gauge
        /// Bucketed observations with `_bucket`, `_sum` and `_count` series.
        case histogram
    }

    /// The text written so far, UTF-8.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty exposition.
    public init() { bytes.reserveCapacity(16 << 10) }

    /// The exposition as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Starts a family: its `# HELP` and `# TYPE` lines.
    /// - Parameters:
    ///   - name: the metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`, checked by the tests, not here).
    ///   - type: counter, gauge or histogram.
    ///   - help: one line for people; backslashes and line feeds are escaped.
    public mutating func family(_ name: String, type: MetricType, help: String) {
        append("# HELP ")
        append(name)
        append(" ")
        Self.escape(help, quotes: false, into: &bytes)
        append("\n# TYPE ")
        append(name)
        append(" ")
        append(type.rawValue)
        append("\n")
    }

    /// Writes a family of one sample without labels: its `# HELP` and `# TYPE` lines, then the sample, so
    /// that the name is written once.
    /// - Parameters:
    ///   - name: the metric name.
    ///   - type: counter or gauge.
    ///   - help: one line for people.
    ///   - value: the value.
    public mutating func family(_ name: String, type: MetricType, help: String, value: Int) {
        family(name, type: type, help: help)
        sample(name, value: value)
    }

    /// Writes a family of one sample without labels, with a floating-point value.
    /// - Parameters:
    ///   - name: the metric name.
    ///   - type: counter or gauge.
    ///   - help: one line for people.
    ///   - value: the value.
    public mutating func family(_ name: String, type: MetricType, help: String, value: Double) {
        family(name, type: type, help: help)
        sample(name, value: value)
    }

    /// Writes a family with one sample per value of one label, in the order given.
    /// - Parameters:
    ///   - name: the metric name.
    ///   - type: counter or gauge.
    ///   - help: one line for people.
    ///   - label: the label's name.
    ///   - values: each sample's label value and value.
    public mutating func family(
        _ name: String, type: MetricType, help: String, label: String, values: some Sequence<(String, Int)>
    ) {
        family(name, type: type, help: help)
        for (labelValue, value) in values { sample(name, labels: [(label, labelValue)], value: value) }
    }

    /// Writes one sample with an integer value.
    /// - Parameters:
    ///   - name: the series name (the family's, or a histogram's `_bucket`/`_sum`/`_count`).
    ///   - labels: label names and values, in order; values are escaped.
    ///   - value: the value.
    public mutating func sample(_ name: String, labels: [(String, String)] = [], value: Int) {
        appendSeries(name, labels: labels)
        append(String(value))
        append("\n")
    }

    /// Writes one sample with a floating-point value (`NaN`, `+Inf` and `-Inf` spelled as the format asks).
    /// - Parameters:
    ///   - name: the series name.
    ///   - labels: label names and values, in order.
    ///   - value: the value.
    public mutating func sample(_ name: String, labels: [(String, String)] = [], value: Double) {
        appendSeries(name, labels: labels)
        append(Self.format(value))
        append("\n")
    }

    /// Writes a histogram's series: one `_bucket` per bound and `+Inf`, then `_sum` and `_count`.
    /// - Parameters:
    ///   - name: the family name (without suffix).
    ///   - labels: the labels every series of this histogram carries (before `le`).
    ///   - snapshot: the figures.
    public mutating func histogram(_ name: String, labels: [(String, String)] = [], snapshot: Histogram.Snapshot) {
        let bucket = name + "_bucket"
        for (index, count) in snapshot.cumulativeCounts.enumerated() {
            let bound = index < snapshot.bounds.count ? Self.format(snapshot.bounds[index]) : "+Inf"
            sample(bucket, labels: labels + [("le", bound)], value: count)
        }
        sample(name + "_sum", labels: labels, value: snapshot.sumSeconds)
        sample(name + "_count", labels: labels, value: snapshot.count)
    }

    /// A number as the format spells it: Go's float syntax, `+Inf`, `-Inf`, `NaN`.
    /// - Parameter value: the number.
    /// - Returns: its text.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value escaped as the format asks: backslash, double quote and line feed.
    /// - Parameter value: the raw value.
    /// - Returns: the text between the quotes.
    public static func escapedLabelValue(_ value: String) -> String {
        var bytes: [UInt8] = []
        escape(value, quotes: true, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func appendSeries(_ name: String, labels: [(String, String)]) {
        append(name)
        if !labels.isEmpty {
            append("{")
            for (index, (label, value)) in labels.enumerated() {
                if index > 0 { append(",") }
                append(label)
                append("=\"")
                Self.escape(value, quotes: true, into: &bytes)
                append("\"")
            }
            append("}")
        }
        append(" ")
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    // HELP text escapes backslash and line feed; label values also the double quote.
    private static func escape(_ text: String, quotes: Bool, into bytes: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\"") where quotes: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            default: bytes.append(byte)
            }
        }
    }
}

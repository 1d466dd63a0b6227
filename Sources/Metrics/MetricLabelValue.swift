/// The values of one metric label, fixed at start-up as the cases of an enum: each case counts in the
/// `AtomicCounters` slot of its raw value and is written as its `label` (`FetchMetrics.Outcome`,
/// `MetricsRoute`, `FetchRefusal.Reason`).
public protocol MetricLabelValue: CaseIterable, RawRepresentable where RawValue == Int {
    /// The label value as the exposition writes it (`address_refused`).
    var label: String { get }
}

extension AtomicCounters {
    /// The samples of a family with one label: each value of `Label`, in declaration order, with the count
    /// in its slot (for `PrometheusText.family(_:type:help:label:values:)`).
    /// - Parameter _: the label's values.
    /// - Returns: the label values and counts.
    public func samples<Label: MetricLabelValue>(by _: Label.Type) -> [(String, Int)] {
        Label.allCases.map { ($0.label, value(at: $0.rawValue)) }
    }
}

import Metrics
import Testing

/// The text format's spelling: escapes, numbers, family headers and histogram series.
@Suite struct PrometheusTextTests {
    static let labelValues: [(String, String)] = [
        ("plain", "plain"), ("a\"b", "a\\\"b"), ("back\\slash", "back\\\\slash"), ("line\nfeed", "line\\nfeed"),
        ("\\\"\n", "\\\\\\\"\\n"), ("ünïcode", "ünïcode"), ("", ""),
    ]

    @Test(arguments: labelValues) func labelValueIsEscaped(raw: String, escaped: String) {
        #expect(PrometheusText.escapedLabelValue(raw) == escaped)
        var text = PrometheusText()
        text.sample("m", labels: [("l", raw)], value: 1)
        #expect(text.text == "m{l=\"\(escaped)\"} 1\n")
    }

    @Test func helpEscapesBackslashAndLineFeedButNotQuotes() {
        var text = PrometheusText()
        text.family("m_total", type: .counter, help: "say \"hi\"\\\nbye")
        #expect(text.text == "# HELP m_total say \"hi\"\\\\\\nbye\n# TYPE m_total counter\n")
    }

    @Test func aFamilyOfOneSampleWritesItsHeaderThenTheSample() {
        var text = PrometheusText()
        text.family("m_total", type: .counter, help: "One.", value: 3)
        text.family("g", type: .gauge, help: "Two.", value: 0.5)
        #expect(
            text.text
                == "# HELP m_total One.\n# TYPE m_total counter\nm_total 3\n# HELP g Two.\n# TYPE g gauge\ng 0.5\n")
    }

    @Test func aFamilyByOneLabelWritesASamplePerValueInOrder() {
        var text = PrometheusText()
        text.family("r_total", type: .counter, help: "By result.", label: "result", values: [("hit", 2), ("miss", 0)])
        #expect(
            text.text
                == "# HELP r_total By result.\n# TYPE r_total counter\nr_total{result=\"hit\"} 2\n"
                + "r_total{result=\"miss\"} 0\n")
    }

    static let numbers: [(Double, String)] = [
        (1, "1"), (0, "0"), (-3, "-3"), (0.5, "0.5"), (0.0005, "0.0005"), (.infinity, "+Inf"), (-.infinity, "-Inf"),
        (.nan, "NaN"), (2.5, "2.5"), (1e20, "1e+20"),
    ]

    @Test(arguments: numbers) func numberIsSpelledAsTheFormatAsks(value: Double, spelled: String) {
        #expect(PrometheusText.format(value) == spelled)
    }

    @Test func histogramWritesCumulativeBucketsSumAndCount() {
        let histogram = Histogram(bounds: [0.001, 0.01])
        histogram.observe(nanoseconds: 500_000)  // 0.5 ms: first bucket
        histogram.observe(nanoseconds: 1_000_000)  // exactly the bound: le is inclusive
        histogram.observe(nanoseconds: 5_000_000)  // second bucket
        histogram.observe(nanoseconds: 2_000_000_000)  // only +Inf
        var text = PrometheusText()
        text.histogram("d_seconds", labels: [("route", "fetch")], snapshot: histogram.snapshot)
        #expect(
            text.text == """
                d_seconds_bucket{route="fetch",le="0.001"} 2
                d_seconds_bucket{route="fetch",le="0.01"} 3
                d_seconds_bucket{route="fetch",le="+Inf"} 4
                d_seconds_sum{route="fetch"} 2.0065
                d_seconds_count{route="fetch"} 4

                """)
    }

    @Test func boundsAreSortedDeduplicatedAndFinite() {
        let histogram = Histogram(bounds: [1, 0.1, 1, .infinity, -1, 0])
        #expect(histogram.bounds == [0.1, 1])
        #expect(histogram.snapshot.cumulativeCounts == [0, 0, 0])
    }
}

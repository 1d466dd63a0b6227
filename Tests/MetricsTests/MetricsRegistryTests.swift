import Metrics
import Testing

/// The registry writes its collectors in order; counters and slot arrays count and never trap.
@Suite struct MetricsRegistryTests {
    struct Fixed: MetricsSource {
        let name: String
        let value: Int
        func write(to text: inout PrometheusText) {
            text.family(name, type: .gauge, help: "A fixed value.")
            text.sample(name, value: value)
        }
    }

    @Test func collectorsAreWrittenInRegistrationOrder() {
        let registry = MetricsRegistry()
        registry.register(Fixed(name: "b", value: 2))
        registry.register(Fixed(name: "a", value: 1))
        let text = String(decoding: registry.render(), as: UTF8.self)
        #expect(text == "# HELP b A fixed value.\n# TYPE b gauge\nb 2\n# HELP a A fixed value.\n# TYPE a gauge\na 1\n")
    }

    @Test func emptyRegistryRendersNothing() {
        #expect(MetricsRegistry().render().isEmpty)
    }

    @Test func counterCountsEveryIncrementFromManyThreads() async {
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<1000 { counter.increment() } } }
        }
        #expect(counter.value == 8000)
    }

    @Test(arguments: [-5, -1, 3, 4, 100]) func slotOutsideTheArrayIsClampedOnAddAndZeroOnRead(index: Int) {
        let counters = AtomicCounters(count: 3)
        counters.add(1, at: index)
        #expect(counters.value(at: index) == 0)
        #expect(counters.value(at: 0) + counters.value(at: 2) == 1)
    }

    @Test func processMetricsReadTheLiveProcess() {
        var text = PrometheusText()
        ProcessMetrics(version: "1.2.3", startTime: 1000).write(to: &text)
        let lines = text.text.split(separator: "\n")
        func value(_ name: String) -> Double? {
            lines.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
        }
        #expect(text.text.contains("larder_build_info{version=\"1.2.3\"} 1\n"))
        #expect(value("process_start_time_seconds") == 1000)
        #expect((value("process_resident_memory_bytes") ?? 0) > Double(1 << 20))
        #expect((value("process_virtual_memory_bytes") ?? 0) >= (value("process_resident_memory_bytes") ?? 1))
        #expect((value("process_open_fds") ?? 0) >= 3)
        #expect(value("process_cpu_seconds_total") != nil)
    }
}

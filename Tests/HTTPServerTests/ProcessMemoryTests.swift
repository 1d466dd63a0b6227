import Foundation
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// `serve` keeps freed heap memory for the next allocations (`ProcessMemory.holdFreedHeap`): every body read
/// from the store is a new buffer, freed once written, and without it each hit faulted its pages in again.
@Suite(.serialized) struct ProcessMemoryTests {
    /// The process's minor page faults so far (`/proc/PID/stat`, the tenth field; the name in parentheses
    /// before it may hold spaces).
    private static func minorFaults(of pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        // After the name: state is field 3, minflt field 10.
        return try #require(Int(fields[7]))
    }

    @Test func storeHitsReuseFreedHeapPages() async throws {
        let origin = try StubOrigin()
        let body = (0..<(256 << 10)).map { _ in UInt8.random(in: 0...255) }
        origin.respond(to: "/big", with: StubOriginResponse.ok(bytes: body).header("Cache-Control", "max-age=3600"))
        let larder = try await LarderProcess.start(arguments: ["--allow-network", "127.0.0.0/8", "--hot-bytes", "0"])
        defer { larder.stop() }
        let url = origin.url("/big")
        #expect(try larder.fetch(url).body == body)
        #expect(await eventually(timeout: 10) { (try? larder.fetch(url).header("X-Cache")) == "HIT" })
        for _ in 0..<20 { _ = try larder.fetch(url) }

        let pid = larder.process.processIdentifier
        let before = try Self.minorFaults(of: pid)
        // Sixteen callers at once, as under load: the bodies in flight together pass glibc's default limits.
        let wrong = Mutex(0)
        let port = larder.port
        let target = "/fetch?url=" + url.percentEncoded()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            // One keep-alive connection each: what is measured is the hits, not connections coming and going.
            guard let client = try? RawSocketClient(port: port) else { return wrong.withLock { $0 += 100 } }
            for _ in 0..<100 {
                try? client.send("GET \(target) HTTP/1.1\r\nHost: test\r\n\r\n")
                let hit = try? client.readFinalResponse()
                if hit?.header("X-Cache") != "HIT" || hit?.body.count != body.count { wrong.withLock { $0 += 1 } }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
        let faults = try Self.minorFaults(of: pid) - before
        // A new 256 KiB buffer is 64 pages. With glibc's default limits these hits faulted 10 000 to 29 000
        // pages in (6 to 18 a hit); with the freed heap kept, 375 to 566 (threads and buffers made once).
        #expect(faults < 1_600, "\(faults) minor page faults in 1 600 hits of 256 KiB")
    }
}

/// When `serve` gives freed heap back (`ProcessMemory.TrimSchedule`): every 30 s, and at the next tick (a tenth
/// of a second) after the bounded transient memory (write backlog, bodies in flight) drains by the drop from
/// its high-water mark.
@Suite struct TrimScheduleTests {
    typealias Schedule = ProcessMemory.TrimSchedule

    @Test func aHeapThatDoesNotDrainIsTrimmedOnlyEveryPeriod() {
        var schedule = Schedule(ticksPerTrim: 30, drop: 16 << 20)
        // Rising, and wobbling by less than the drop: nothing to give back before the period ends.
        let held = (1...90).map { ($0 % 7) << 20 + $0 << 18 }
        let trims = held.enumerated().filter { schedule.tick(held: $0.element) }.map(\.offset)
        #expect(trims == [29, 59, 89])
    }

    @Test func aDrainByTheDropTrimsAtTheNextTickAndStartsAPeriodAgain() {
        var schedule = Schedule(ticksPerTrim: 30, drop: 16 << 20)
        // Up to 64 MiB, 14 MiB below the peak, then 16 below it: a trim. The peak is then what was held at
        // the trim, so the next drain is measured from there (40, then 30: a trim). Refilling is no reason to
        // trim; the period counts from the last trim, so the 30th tick after it trims.
        let held = [10, 64, 50, 48, 40, 30] + (30..<60).map { $0 }
        let trims = held.map { schedule.tick(held: $0 << 20) }
        let expected = [false, false, false, true, false, true] + Array(repeating: false, count: 29) + [true]
        #expect(trims == expected)
    }
}

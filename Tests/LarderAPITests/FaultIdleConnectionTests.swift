import Foundation
import HTTPServer
import LarderAPI
import TestSupport
import Testing

extension FaultSuites {
    /// Thousands of connections that connect and say nothing: held up to the idle timeout, refused with
    /// 503 beyond `maxConnections`, and a new caller is served all along (or again once they are gone).
    @Suite(.enabled(if: FaultSuites.heavy)) struct FaultIdleConnectionTests {
        static let idle = 3000

        @Test func thousandsOfIdleConnectionsAreHeldUntilTheIdleTimeoutAndHealthzAnswersMeanwhile() async throws {
            let server = HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, backlog: 4096, headerReadTimeout: 5, idleTimeout: 5, writeTimeout: 5,
                maxConnections: 4000,
                eventLoops: 2)
            try await withFaultHarness(server: server) { harness in
                let port = harness.server.port
                let pool = try await offPool { try IdleConnectionPool(count: Self.idle, port: port) }
                defer { pool.closeAll() }
                // Held, not refused (the bound is above them); on a loaded machine the first may already have
                // timed out by the time the last connects, so this counts at least some, not all.
                #expect(harness.server.connectionCount > 0)
                #expect(harness.isHealthy())
                // The idle timeout (5 s) closes every one of them, without a response (nothing was asked).
                let (closed, answered) = try await offPool { pool.waitForServerToClose(timeout: .seconds(15)) }
                #expect(closed == Self.idle)
                #expect(answered == 0)
                #expect(await waitUntil(timeout: .seconds(5)) { harness.server.connectionCount == 0 })
                #expect(harness.isHealthy())
            }
        }

        @Test func connectionsBeyondTheBoundGet503AndANewCallerIsServedOnceIdleOnesAreGone() async throws {
            let bound = 1000
            let server = HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, backlog: 4096, headerReadTimeout: 2, idleTimeout: 2, writeTimeout: 5,
                maxConnections: bound,
                eventLoops: 2)
            try await withFaultHarness(server: server) { harness in
                let port = harness.server.port
                let pool = try await offPool { try IdleConnectionPool(count: Self.idle, port: port) }
                defer { pool.closeAll() }
                let (closed, answered) = try await offPool { pool.waitForServerToClose(timeout: .seconds(15)) }
                #expect(closed == Self.idle, "held ones by the idle timeout, refused ones at once")
                #expect(answered >= Self.idle - bound - 50 && answered <= Self.idle - bound, "\(answered) got 503")
                #expect(pool.answers.allSatisfy { $0.hasPrefix("HTTP/1.1 503") })
                #expect(await waitUntil(timeout: .seconds(5)) { harness.server.connectionCount == 0 })
                #expect(harness.isHealthy())
            }
        }
    }
}

/// A socket call of the idle pool failed.
struct IdleConnectionError: Error {
    let operation: String
    let errno: Int32
}

/// Plain sockets connected to 127.0.0.1 that never send a byte; watches which the server closes and
/// what it said before closing. `@unchecked Sendable`: one test uses it at a time, handing it between
/// its own task and `offPool`, never from two threads at once.
final class IdleConnectionPool: @unchecked Sendable {
    private var sockets: [Int32] = []
    /// The first bytes of each response received, one per connection that got one.
    private(set) var answers: [String] = []

    /// Connects `count` sockets, raising the soft descriptor limit to the hard one first.
    init(count: Int, port: Int) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw IdleConnectionError(operation: "socket", errno: errno) }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else {
                let error = IdleConnectionError(operation: "connect", errno: errno)
                close(fd)
                closeAll()
                throw error
            }
            sockets.append(fd)
        }
    }

    deinit { closeAll() }

    /// Polls until the server has closed every socket or `timeout` passes.
    /// - Returns: how many it closed, and how many of those got a response first.
    func waitForServerToClose(timeout: Duration) -> (closed: Int, answered: Int) {
        var open = Set(sockets)
        var answered = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        var received: [Int32: [UInt8]] = [:]
        let deadline = ContinuousClock.now + timeout
        while !open.isEmpty && ContinuousClock.now < deadline {
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), 100) > 0 else { continue }
            for descriptor in descriptors where descriptor.revents != 0 {
                let count = recv(descriptor.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    received[descriptor.fd, default: []] += buffer[..<count]
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    open.remove(descriptor.fd)
                    if let bytes = received[descriptor.fd], !bytes.isEmpty {
                        answered += 1
                        answers.append(String(decoding: bytes.prefix(64), as: UTF8.self))
                    }
                }
            }
        }
        return (sockets.count - open.count, answered)
    }

    /// Closes every socket (idempotent).
    func closeAll() {
        for fd in sockets { close(fd) }
        sockets = []
    }
}

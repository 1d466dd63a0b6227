import CLinux
import Dispatch
import Glibc

/// One of the server's serial queues, with an epoll set of its connections' sockets watched by a single
/// libdispatch read source, and the read buffer its connections share.
///
/// Why one source per loop rather than one per socket: on Linux, libdispatch re-arms a socket's source
/// through its manager thread after every event, which costs an `eventfd` wake-up, two `epoll_ctl` calls
/// and about two context switches per request. Measured on this machine (2 cores, the server pinned to
/// one), a bare per-socket-source server answered about 70 000 small responses/s and the same server on
/// an edge-triggered epoll set under one source about 110 000, like nginx. Here the sockets are
/// registered once, edge-triggered; one `epoll_wait` hands over every ready socket of the loop.
///
/// `@unchecked Sendable`: `readBuffer`, `connections` and `events` are only used on `queue` (connection
/// queues target it, so they are serialized with it); the parser copies what it keeps. Being confined to
/// `queue`, its mutable members skip the runtime's exclusivity check (as `HTTPConnection`'s do).
final class EventLoop: @unchecked Sendable {
    /// Lets a connection tell whether it runs on its own loop, and for which connection the loop is
    /// handling an event right now (`serving`).
    static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// Ready sockets taken per `epoll_wait`.
    static let batchSize = 128

    let queue: DispatchQueue
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The connection whose socket event is being handled (0 when none); only used on `queue`.
    @exclusivity(unchecked) var serving = 0

    @exclusivity(unchecked) private var epollFD: Int32 = -1
    @exclusivity(unchecked) private var source: (any DispatchSourceRead)?
    @exclusivity(unchecked) private var connections: [Int: HTTPConnection] = [:]
    private let events: UnsafeMutablePointer<epoll_event>

    init(label: String, readBufferBytes: Int = 64 * 1024) {
        queue = DispatchQueue(label: label)
        readBuffer = .allocate(byteCount: readBufferBytes, alignment: 16)
        events = .allocate(capacity: Self.batchSize)
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        source?.cancel()
        readBuffer.deallocate()
        events.deallocate()
    }

    /// Creates the epoll set and starts watching it; call once, before any `register`.
    /// - Throws: `SocketError` when the kernel refuses an epoll set (out of descriptors).
    func start() throws(SocketError) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw SocketError(operation: "epoll_create1", errno: errno) }
        let source = DispatchSource.makeReadSource(fileDescriptor: epollFD, queue: queue)
        source.setEventHandler { [weak self] in self?.dispatchReadyEvents() }
        source.setCancelHandler { close(epollFD) }
        queue.sync {
            self.epollFD = epollFD
            self.source = source
        }
        source.activate()
    }

    /// Whether the caller runs on this loop's queue (directly or through a connection queue).
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) }

    /// Watches `connection`'s socket for reading, writing and the peer's close, edge-triggered. Call on
    /// `queue`.
    /// - Throws: `SocketError` from `epoll_ctl`.
    func register(_ connection: HTTPConnection) throws(SocketError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        event.data.u64 = UInt64(connection.id)
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, connection.fd, &event) == 0 else {
            throw SocketError(operation: "epoll_ctl(ADD)", errno: errno)
        }
        connections[connection.id] = connection
    }

    /// Stops watching `connection`'s socket; call on `queue` before closing it. Events already taken
    /// for it are dropped, because they are looked up by connection id.
    func unregister(_ connection: HTTPConnection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, connection.fd, nil)
    }

    /// Hands every ready socket to its connection. A full batch is followed by another, a few times at
    /// most, so that responses queued by other threads are not held behind a stream of socket events.
    private func dispatchReadyEvents() {
        for _ in 0..<4 {
            let count = epoll_wait(epollFD, events, Int32(Self.batchSize), 0)
            guard count > 0 else { return }
            for index in 0..<Int(count) {
                let event = events[index]
                guard let connection = connections[Int(truncatingIfNeeded: event.data.u64)] else { continue }
                serving = connection.id
                connection.socketReady(events: event.events)
                serving = 0
            }
            if count < Self.batchSize { return }
        }
    }
}

import Dispatch

/// One of the server's serial root queues, with the read buffer its connections share.
///
/// `@unchecked Sendable`: `readBuffer` is only used from connection queues that target `queue`; the
/// target is serial, so no two of them run at once, and the parser copies what it keeps.
final class EventLoop: @unchecked Sendable {
    let queue: DispatchQueue
    let readBuffer: UnsafeMutableRawBufferPointer

    init(label: String, readBufferBytes: Int = 64 * 1024) {
        queue = DispatchQueue(label: label)
        readBuffer = .allocate(byteCount: readBufferBytes, alignment: 16)
    }

    deinit { readBuffer.deallocate() }
}

import CZlib

// Internal, never public: the C type stays inside this target (InternalImportsByDefault keeps CZlib out
// of every signature other targets see), and Deflater and Inflater lend zlib their buffers the same way.
extension z_stream {
    /// Gives zlib the next slice of the input once it has taken all of the previous one.
    mutating func refill(from slices: inout InputSlices) {
        guard avail_in == 0, let slice = slices.next() else { return }
        next_in = slice.start
        avail_in = slice.count
    }

    /// Takes the caller's buffers back at the end of a call: input a failure left unread must not be
    /// offered to the next call (nor after `inflateReset`, which keeps `avail_in`).
    mutating func releaseBuffers() {
        next_in = nil
        avail_in = 0
        next_out = nil
        avail_out = 0
    }
}

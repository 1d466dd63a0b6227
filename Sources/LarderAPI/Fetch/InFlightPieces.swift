/// The bytes of a body in flight that are still held, as the pieces they arrived in, addressed by
/// their offset in the whole body.
///
/// Pieces, not one growing array: the prefix every consumer has passed is let go piece by piece
/// (an array's capacity never shrinks), and a piece read whole is handed out without a copy (a small
/// body arrives as one piece and leaves as that same array).
struct InFlightPieces {
    private var pieces: [[UInt8]] = []
    /// The offset in the body of each piece's first byte.
    private var starts: [Int] = []
    /// The first piece still held; the ones before it are released and compacted away in batches.
    private var first = 0
    /// The offset of the first byte held (always a piece's start).
    private(set) var base = 0
    /// The offset just past the last byte received.
    private(set) var end = 0

    /// Bytes held.
    var count: Int { end - base }

    /// Adds the next piece of the body.
    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        pieces.append(bytes)
        starts.append(end)
        end += bytes.count
    }

    /// Bytes from `offset` (which must lie in `base..<end`), at most `maxBytes`: the piece itself when it
    /// starts there and fits, else one copy gathered across pieces.
    func read(from offset: Int, maxBytes: Int) -> [UInt8] {
        var index = pieceIndex(holding: offset)
        let within = offset - starts[index]
        let wanted = min(max(1, maxBytes), end - offset)
        if within == 0, pieces[index].count == wanted { return pieces[index] }
        var out: [UInt8] = []
        out.reserveCapacity(wanted)
        var skip = within
        while out.count < wanted {
            let piece = pieces[index]
            let take = min(piece.count - skip, wanted - out.count)
            out.append(contentsOf: piece[skip..<skip + take])
            skip = 0
            index += 1
        }
        return out
    }

    /// Lets go of the whole pieces that end at or before `offset`.
    /// - Returns: how many bytes were let go.
    mutating func release(upTo offset: Int) -> Int {
        let before = base
        while first < pieces.count, starts[first] + pieces[first].count <= offset {
            pieces[first] = []
            first += 1
        }
        base = first < pieces.count ? starts[first] : end
        if first >= 64, first * 2 >= pieces.count {
            pieces.removeFirst(first)
            starts.removeFirst(first)
            first = 0
        }
        return base - before
    }

    /// The whole body, when nothing of it was let go (the image validator reads it whole).
    var whole: [UInt8]? {
        guard base == 0 else { return nil }
        if pieces.count == 1 { return pieces[0] }
        var out: [UInt8] = []
        out.reserveCapacity(end)
        for piece in pieces { out.append(contentsOf: piece) }
        return out
    }

    /// The piece holding `offset`, found by bisection over the held pieces.
    private func pieceIndex(holding offset: Int) -> Int {
        var low = first
        var high = pieces.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

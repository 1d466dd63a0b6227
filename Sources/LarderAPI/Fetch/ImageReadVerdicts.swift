import ImageSniffing
import Synchronization

/// The stored image bodies this process has validated on a read and found sound, so that later reads of
/// the same body skip the validator (a JPEG hit from the store spent a twentieth of its time in it).
///
/// The rule (docs/ARCHITECTURE.md): an image is validated on admission, and on its first read in a process
/// at `ImageValidator.Depth.structure` (the store may hold bytes admitted by another version, or under a
/// filter that did not ask); the verdict is kept per stored body until the entry changes. A body is named
/// by its id, which the store never gives twice (a replaced or refetched entry has a new one), and by its
/// CRC-32, and the verdict holds for the SVG permission it was reached with. What the verdict does not
/// replace: every read still checks each chunk's CRC-32, so a byte changed on disk since is never served.
///
/// Bounded: when `capacity` bodies are held the memo starts over (each is validated once more).
final class ImageReadVerdicts: Sendable {
    /// A stored body, and the SVG permission it is validated under.
    struct StoredBody: Hashable {
        let bodyID: Int64
        let crc32: UInt32
        let allowSVG: Bool
    }

    private let passed = Mutex(Set<StoredBody>())
    private let validatorRuns = Atomic<Int>(0)
    /// The most bodies held.
    let capacity: Int

    /// About 40 bytes a body in the set: 2.5 MiB when full.
    static let defaultCapacity = 65_536

    /// Creates an empty memo.
    /// - Parameter capacity: the most bodies held; 0 holds none (every read validates).
    init(capacity: Int = ImageReadVerdicts.defaultCapacity) {
        self.capacity = max(0, capacity)
    }

    /// The read's verdict on a stored image: `nil` when it passes, now or on an earlier read of the same
    /// body, else why it is refused (not kept: the caller deletes the entry).
    /// - Parameters:
    ///   - bytes: the whole body, its chunks' CRC-32 checked by the read that produced it.
    ///   - body: the body's id, CRC-32 and the SVG permission of the validator.
    ///   - validator: the `.structure` validator for this read.
    func rejection(of bytes: [UInt8], body: StoredBody, validator: ImageValidator) -> ImageRejection? {
        if passed.withLock({ $0.contains(body) }) { return nil }
        validatorRuns.add(1, ordering: .relaxed)
        if let rejection = validator.validate(bytes).rejection { return rejection }
        guard capacity > 0 else { return nil }
        passed.withLock { passed in
            if passed.count >= capacity { passed.removeAll(keepingCapacity: true) }
            passed.insert(body)
        }
        return nil
    }

    /// How many bodies are held (for tests).
    var count: Int { passed.withLock { $0.count } }

    /// How many times a read ran the validator (for tests).
    var runs: Int { validatorRuns.load(ordering: .relaxed) }
}

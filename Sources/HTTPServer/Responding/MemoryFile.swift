import CLinux
import Glibc
public import HTTPCore

/// Bytes held in an anonymous in-memory file (`memfd_create`), which the server sends with `sendfile`:
/// the kernel then references the file's pages instead of copying the bytes from user memory into the
/// socket, the copy that dominated large hot hits (`_copy_from_iter`, about a third of the server's CPU
/// time on 256 KiB bodies).
///
/// The pages are memory like any other (shared memory, not the process's anonymous RSS); the owner
/// counts them against its budget. The descriptor closes when the last reference goes, so a response
/// still being written keeps its file.
public final class MemoryFile: HTTPFileRegion {
    public let descriptor: Int32
    public let offset = 0
    public let count: Int
    private let budget: MemoryFileBudget

    /// Copies `bytes` into a new in-memory file.
    /// - Parameters:
    ///   - bytes: the content.
    ///   - name: a label for `/proc/<pid>/fd` (not a path; nothing appears in the file system).
    ///   - budget: how many such files may be open at once.
    /// - Returns: nil when the budget is spent or the kernel refuses (out of descriptors or memory); keep
    ///   the bytes instead.
    public init?(bytes: [UInt8], name: String = "larder-body", budget: MemoryFileBudget = .shared) {
        guard budget.take() else { return nil }
        let fd = clinux_memfd_create(name)
        guard fd >= 0 else {
            budget.give()
            return nil
        }
        var written = 0
        let complete = bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let result = pwrite(fd, raw.baseAddress! + written, raw.count - written, off_t(written))
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return true
        }
        guard complete else {
            close(fd)
            budget.give()
            return nil
        }
        descriptor = fd
        count = bytes.count
        self.budget = budget
    }

    deinit {
        close(descriptor)
        budget.give()
    }
}

import Synchronization

/// A value that a reload replaces whole while requests read it (`FetchAccess`, `AdminAccess`).
///
/// A read takes the lock only to copy the value out (for a class or an array, one retain), so a request
/// pays an uncontended lock and never sees half of an old set and half of a new one; a reload waits for
/// no request. Reads and the swap are cheap enough that nothing cleverer (an atomic reference with its
/// reclamation problem) is worth it: the lock is taken once per guarded request.
final class ReloadableValue<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    /// Holds `value` until the first `replace`.
    /// - Parameter value: the value in force.
    init(_ value: Value) {
        self.value = Mutex(value)
    }

    /// The value in force.
    var current: Value { value.withLock { $0 } }

    /// Puts `new` in force for every later read.
    /// - Parameter new: the new value.
    /// - Returns: the value it replaced.
    @discardableResult
    func replace(with new: Value) -> Value {
        value.withLock { value in
            let old = value
            value = new
            return old
        }
    }
}

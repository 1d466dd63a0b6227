/// A socket call of the stub origin failed.
public struct StubOriginError: Error, CustomStringConvertible {
    /// The failing call, e.g. `bind`.
    public var operation: String
    /// `errno` after the call.
    public var errno: Int32

    /// `operation failed: errno N`.
    public var description: String { "\(operation) failed: errno \(errno)" }
}

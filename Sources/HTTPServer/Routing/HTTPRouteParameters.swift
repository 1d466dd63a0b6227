/// The values a route pattern captured, by parameter name (`/cache/:key` gives `key`).
public struct HTTPRouteParameters: Sendable, Equatable {
    private var pairs: [(name: String, value: String)]

    /// Creates parameters from name/value pairs.
    /// - Parameter pairs: names without the `:` and their decoded values.
    public init(_ pairs: [(String, String)] = []) {
        self.pairs = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// The decoded value of the named parameter, or `nil`.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Whether no parameter was captured.
    public var isEmpty: Bool { pairs.isEmpty }

    mutating func append(name: String, value: String) {
        pairs.append((name, value))
    }

    /// Equal when the same names captured the same values, in order.
    public static func == (lhs: HTTPRouteParameters, rhs: HTTPRouteParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }
}

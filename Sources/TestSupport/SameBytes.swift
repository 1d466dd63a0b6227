/// Whether two byte sequences are equal, for `#expect(sameBytes(a, b))` on bodies: an `==` of two
/// arrays inside `#expect` makes Swift Testing compute their difference when it fails, which for
/// bodies of tens of kilobytes took minutes of CPU and stalled every other test of the run.
/// - Parameters:
///   - actual: the bytes received.
///   - expected: the bytes expected.
/// - Returns: whether they are equal, element by element.
public func sameBytes(_ actual: some Sequence<UInt8>, _ expected: some Sequence<UInt8>) -> Bool {
    actual.elementsEqual(expected)
}

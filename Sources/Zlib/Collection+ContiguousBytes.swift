extension Collection<UInt8> {
    /// Calls `body` with the bytes laid out contiguously: in place when the collection stores them so
    /// (arrays, slices, buffers), otherwise from a copy.
    func withContiguousBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        return Array(self).withUnsafeBytes(body)
    }
}

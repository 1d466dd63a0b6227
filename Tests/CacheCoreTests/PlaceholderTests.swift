import Testing

// Replaced by the real suite of this target's issue.
@Suite struct CacheCorePlaceholderTests {
    @Test func targetBuilds() { #expect(Bool(true)) }
}

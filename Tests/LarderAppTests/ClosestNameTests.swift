import Testing

@testable import LarderApp

/// "Did you mean" hints: close slips are suggested, far names are not.
@Suite struct ClosestNameTests {
    @Test(arguments: [
        ("", "", 0), ("port", "port", 0), ("portt", "port", 1), ("prot", "port", 1), ("hots", "host", 1),
        ("kitten", "sitting", 3), ("", "abc", 3), ("abc", "", 3), ("max-sise", "max-size", 1),
    ])
    func editDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps(_ a: String, _ b: String, _ distance: Int) {
        #expect(ClosestName.editDistance(Array(a), Array(b)) == distance)
        #expect(ClosestName.editDistance(Array(b), Array(a)) == distance)
    }

    @Test func theNearestCloseCandidateIsSuggested() {
        let flags = ["host", "port", "db", "max-size", "hot-bytes"]
        #expect(ClosestName.suggestion(for: "portt", among: flags) == "port")
        #expect(ClosestName.suggestion(for: "PORT", among: flags) == "port")
        #expect(ClosestName.suggestion(for: "hot-byte", among: flags) == "hot-bytes")
        #expect(ClosestName.suggestion(for: "dbb", among: flags) == "db")
        #expect(ClosestName.suggestion(for: "p", among: flags) == nil)
        #expect(ClosestName.suggestion(for: "cache-size", among: flags) == nil)
        #expect(ClosestName.suggestion(for: "anything", among: []) == nil)
    }

    @Test func aTieGoesToTheEarlierCandidate() {
        #expect(ClosestName.suggestion(for: "post", among: ["host", "port"]) == "host")
        #expect(ClosestName.suggestion(for: "post", among: ["port", "host"]) == "port")
    }
}

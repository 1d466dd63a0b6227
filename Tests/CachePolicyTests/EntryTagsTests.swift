import CachePolicy
import HTTPCore
import Testing

@Suite struct EntryTagsTests {
    @Test(arguments: [
        ([("Surrogate-Key", " a  b\tc ")], ["a", "b", "c"], 0),
        ([("Cache-Tag", "a, b ,c,,")], ["a", "b", "c"], 0),
        ([("Surrogate-Key", "a b"), ("Cache-Tag", "b,c"), ("surrogate-key", "d")], ["a", "b", "d", "c"], 0),
        ([("Cache-Tag", "ünï,ok,tab\u{7F}del")], ["ok"], 2),
        (
            [("Surrogate-Key", String(repeating: "x", count: 256) + " " + String(repeating: "y", count: 257))],
            [String(repeating: "x", count: 256)], 1
        ),
        ([("Content-Type", "text/plain")], [], 0),
    ])
    func tagsAreSplitPerFieldAndBadOnesDropped(fields: [(String, String)], tags: [String], dropped: Int) {
        let read = EntryTags(headers: HTTPHeaders(fields))
        #expect(read.tags == tags)
        #expect(read.dropped == dropped)
    }

    @Test func filterTagsComeFirstAndTheCountIsBounded() {
        let many = (0..<70).map { "o\($0)" }.joined(separator: " ")
        let read = EntryTags(headers: HTTPHeaders([("Surrogate-Key", many)]), filterTags: ["images", "o1"])
        #expect(read.tags.count == EntryTags.maxCount)
        #expect(Array(read.tags.prefix(3)) == ["images", "o1", "o0"])
        #expect(read.dropped == 70 - 63 + 0)
    }

    @Test func aFilterTagMustBeATag() throws {
        let ok = try FilterDefinition.decode(json: Array(#"{"name":"f","tags":["images","a-b_c.d"]}"#.utf8))
        #expect(ok.tags == ["images", "a-b_c.d"])
        #expect(ok.decision.tags == ["images", "a-b_c.d"])
        #expect(ok.canonicalJSON.hasSuffix(#""tags":["images","a-b_c.d"]}"#))
        for bad in [#"["a b"]"#, #"["a,b"]"#, #"[""]"#, #"[1]"#, #"[]"#, #"["é"]"#] {
            #expect(throws: FilterDefinitionError.self) {
                try FilterDefinition.decode(json: Array(#"{"name":"f","tags":\#(bad)}"#.utf8))
            }
        }
    }
}

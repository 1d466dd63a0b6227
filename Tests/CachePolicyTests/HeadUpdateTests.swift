import CachePolicy
import HTTPCore
import Testing

/// RFC 9111 §4.3.5: which HEAD answers update a stored response, which invalidate it, which leave it.
@Suite struct HeadUpdateTests {
    static let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
    static let later = "Mon, 07 Nov 1994 08:49:37 GMT"

    @Test(
        arguments: [
            // No validator received and no length: nothing contradicts the stored response.
            ([], [("Cache-Control", "max-age=60")], HeadUpdate.Outcome.update),
            ([("ETag", "\"v1\"")], [("ETag", "\"v1\"")], .update),
            ([("ETag", "W/\"v1\"")], [("ETag", "W/\"v1\"")], .update),
            ([("Last-Modified", modified)], [("Last-Modified", modified)], .update),
            ([("ETag", "\"v1\""), ("Last-Modified", modified)], [("ETag", "\"v1\"")], .update),
            ([], [("Content-Length", "4")], .update),
            // A validator the stored response lacks, or has with another value, names another representation.
            ([], [("ETag", "\"v1\"")], .invalidate),
            ([("ETag", "\"v1\"")], [("ETag", "\"v2\"")], .invalidate),
            ([("ETag", "\"v1\"")], [("ETag", "W/\"v1\"")], .invalidate),
            ([("ETag", "\"v1\"")], [("ETag", "v1")], .invalidate),
            ([("Last-Modified", modified)], [("Last-Modified", later)], .invalidate),
            ([], [("Last-Modified", modified)], .invalidate),
            ([("ETag", "\"v1\"")], [("ETag", "\"v1\""), ("Content-Length", "5")], .invalidate),
            ([], [("Content-Length", "four")], .invalidate),
        ] as [([(String, String)], [(String, String)], HeadUpdate.Outcome)])
    func a200IsComparedWithTheStoredValidatorsAndLength(
        stored: [(String, String)], head: [(String, String)], expected: HeadUpdate.Outcome
    ) {
        let outcome = HeadUpdate.outcome(
            status: 200, headers: HTTPHeaders(head), stored: HTTPHeaders(stored), storedLength: 4)
        #expect(outcome == expected)
    }

    @Test(arguments: [203, 204, 206, 304, 404, 410, 500])
    func anyOtherStatusLeavesTheStoredResponse(status: Int) {
        let outcome = HeadUpdate.outcome(
            status: status, headers: HTTPHeaders([("ETag", "\"other\""), ("Cache-Control", "max-age=1000")]),
            stored: HTTPHeaders([("ETag", "\"v1\"")]), storedLength: 4)
        #expect(outcome == HeadUpdate.Outcome.none)
    }
}

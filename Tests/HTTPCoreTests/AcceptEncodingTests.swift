import HTTPCore
import Testing

/// `Accept-Encoding` (RFC 9110 §12.5.3).
@Suite struct AcceptEncodingTests {
    /// (field lines, gzip accepted, identity accepted)
    static let cases: [([String], Bool, Bool)] = [
        ([], false, true),  // absent: identity only (Larder's choice)
        ([""], false, true),  // empty: no coding wanted
        (["gzip"], true, true),
        (["GZIP"], true, true),
        (["x-gzip"], true, true),
        (["deflate, gzip;q=1.0, *;q=0.5"], true, true),
        (["br", "gzip"], true, true),  // several lines form one list
        (["br"], false, true),
        (["gzip;q=0"], false, true),
        (["gzip;q=0.000"], false, true),
        (["gzip;Q=0.001"], true, true),
        (["gzip ; q=0.5"], true, true),
        (["*"], true, true),
        (["*;q=0"], false, false),
        (["*;q=0, identity"], false, true),
        (["*;q=0, gzip"], true, false),
        (["gzip, identity;q=0"], true, false),
        (["identity;q=0"], false, false),
        (["identity"], false, true),
        (["*, gzip;q=0"], false, true),
        (["gzip;q=2"], false, true),  // malformed weight: member skipped
        (["gzip;q=1.5"], false, true),
        (["gzip;q=0.1234"], false, true),
        (["gzip;q=1.001"], false, true),
        (["gzip;level=1"], false, true),
        (["gzip;q="], false, true),
        (["gz ip"], false, true),
        (["identity;q=bad, gzip"], true, true),
    ]

    @Test(arguments: cases)
    func gzipAndIdentityAcceptanceFollowTheWeights(lines: [String], gzip: Bool, identity: Bool) {
        let accept = AcceptEncoding(fieldValues: lines)
        #expect(accept.acceptsGzip == gzip)
        #expect(accept.acceptsIdentity == identity)
    }

    @Test(arguments: [
        ("gzip;q=0.5", 500), ("gzip;q=1", 1000), ("gzip;q=1.", 1000), ("gzip;q=0.25", 250), ("gzip;q=0.007", 7),
        ("gzip", 1000), ("*;q=0.3", 300), ("br", 0),
    ])
    func qualityIsReadInThousandths(value: String, quality: Int) {
        #expect(AcceptEncoding(fieldValues: [value]).quality(of: "gzip") == quality)
    }

    @Test func headersAreReadFromEveryLine() {
        let headers = HTTPHeaders([("Accept-Encoding", "br"), ("accept-encoding", "gzip;q=0.2")])
        let accept = AcceptEncoding(headers)
        #expect(accept.isPresent)
        #expect(accept.preferences == [.init(coding: "br", quality: 1000), .init(coding: "gzip", quality: 200)])
        #expect(accept.accepts("BR"))
        #expect(accept.quality(of: "x-gzip") == 200)
        #expect(!AcceptEncoding(HTTPHeaders()).isPresent)
    }
}

import CacheCore
import HTTPCore
import Testing

@Suite struct CacheBodyHintsTests {
    @Test(arguments: [
        (String?("text/html; charset=utf-8"), String?.none, true),
        ("application/json", nil, true),
        (nil, nil, true),
        ("image/jpeg", nil, false),
        ("IMAGE/PNG", nil, false),
        ("video/anything", nil, false),
        ("text/html", "gzip", false),
        ("text/html", "identity", true),
        ("image/svg+xml", nil, true),
    ])
    func compressionIsTriedOnlyWhenItCanPay(contentType: String?, encoding: String?, allowed: Bool) {
        #expect(CacheBodyHints(contentType: contentType, contentEncoding: encoding).allowsCompression == allowed)
    }

    @Test(arguments: [
        ("public, max-age=60", true),
        ("public, no-transform, max-age=60", false),
        ("No-Transform", false),
    ])
    func noTransformResponsesAreStoredAsTheyCame(cacheControl: String, allowed: Bool) {
        let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Cache-Control", cacheControl)])
        #expect(CacheBodyHints(headers: headers).allowsCompression == allowed)
    }
}

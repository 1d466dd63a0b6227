// Times FilterChain.decide, the per-request step of the filter chain: a chain of ten filters (the
// default images filter last, as an operator's own filters usually come first) against URLs that
// match early, late, and not at all. Prints nanoseconds per decision; run in release (see README.md).
import CachePolicy
import Dispatch
import HTTPCore

var filters: [FilterDefinition] = (0..<8).map { index in
    FilterDefinition(
        name: "site-\(index)",
        match: .init(hosts: ["*.site\(index).example"], pathPrefix: "/static/"),
        ttl: 3600)
}
filters.append(
    FilterDefinition(
        name: "webkit-images",
        match: .init(
            schemes: ["http", "https"], extensions: ["jpg", "jpeg", "png", "gif", "tif", "bmp", "ico"],
            headers: [.init(name: "User-Agent", comparison: .contains, value: "AppleWebKit")]),
        validateImage: true, ttl: 604_800))
filters.append(.images)
let chain = FilterChain(filters: filters, version: 1)

let headers = HTTPHeaders([
    ("Host", "larder.internal"), ("Accept", "image/avif,image/webp,*/*"),
    (
        "User-Agent",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1"
    ),
    ("Accept-Encoding", "gzip, br"),
])
let cases: [(String, String)] = [
    ("first filter owns", "https://cdn.site0.example/static/app.js"),
    ("webkit filter owns", "https://img.example.com/photos/2024/cat.JPG?w=640"),
    ("no filter owns", "https://www.example.com/articles/index.html?page=2"),
]
let iterations = 2_000_000
for (label, text) in cases {
    guard case .success(let url) = URLCanonicalizer().canonicalize(text) else { fatalError("bad URL \(text)") }
    var owners = 0
    // Warm up, then time.
    for _ in 0..<10_000 where chain.decide(url: url, headers: headers).filterName != nil { owners += 1 }
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<iterations where chain.decide(url: url, headers: headers).filterName != nil { owners += 1 }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    let perDecision = Int((Double(elapsed) / Double(iterations)).rounded())
    let owner = chain.decide(url: url, headers: headers).filterName ?? "default policy"
    print("\(label): \(perDecision) ns/decision (owner: \(owner); \(owners) owned)")
}

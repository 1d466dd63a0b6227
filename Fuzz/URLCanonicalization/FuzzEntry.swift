// libFuzzer entry for URL parsing and canonicalization (Fuzz/run.sh URLCanonicalization): CachePolicy's
// URLCanonicalizer, which makes the cache key and the fetched URL, and Upstream's OriginURL, which
// checks that URL again before libcurl sees it. Crashes, sanitizer reports and broken invariants are
// findings; a rejection is an ordinary outcome.
//
// Input: byte 0 chooses the canonicalizer's options (bit 0 ignoreQuery, bit 1 dropParams); the rest
// is the `url` parameter as the caller sent it (invalid UTF-8 is decoded with replacement characters,
// as the server's form decoding does).
import CachePolicy
import Upstream

let plain = URLCanonicalizer()
let dropping = URLCanonicalizer(
    options: URLCanonicalizer.Options(dropParams: [GlobPattern("utm_*"), GlobPattern("fbclid"), GlobPattern("*id")]))
let ignoring = URLCanonicalizer(options: URLCanonicalizer.Options(ignoreQuery: true))

/// Bytes that must never appear in a URL Larder keys, fetches or writes into a header or a log.
func isForbidden(_ byte: UInt8) -> Bool { byte <= 0x20 || byte == 0x7F || byte >= 0x80 }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLCanonicalization(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 1, let data else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: input[1...], as: UTF8.self)
    let canonicalizer = input[0] & 1 == 1 ? ignoring : input[0] & 2 == 2 ? dropping : plain

    if case .success(let canonical) = canonicalizer.canonicalize(text) {
        let string = canonical.string
        require(!string.utf8.contains(where: isForbidden), "forbidden byte in canonical \(string.debugDescription)")
        require(canonical.scheme == "http" || canonical.scheme == "https")
        require(canonical.path.hasPrefix("/"), "path \(canonical.path.debugDescription)")
        // A text already canonical is kept as the string: it must spell the parts exactly.
        require(
            string == canonical.scheme + "://" + canonical.authority + canonical.requestTarget,
            "string \(string.debugDescription) is not its parts joined")
        // Idempotence: the canonical form is its own canonical form, whatever the options.
        switch canonicalizer.canonicalize(string) {
        case .success(let again):
            require(again == canonical, "\(string.debugDescription) canonicalizes to \(again.string.debugDescription)")
        case .failure(let rejection):
            fatalError("canonical \(string.debugDescription) is refused: \(rejection)")
        }
        // Options only remove parts: what is left is canonical without them too.
        require(plain.canonicalize(string).map(\.string) == .success(string), "options left a non-canonical URL")
        // The fetched URL is the canonical string; the origin client must take it as it is.
        do {
            let origin = try OriginURL(validating: string)
            require(origin.string == string, "origin client changes \(string.debugDescription) to \(origin.string)")
        } catch {
            fatalError("origin client refuses canonical \(string.debugDescription): \(error)")
        }
    }

    if let origin = try? OriginURL(validating: text) {
        require(!origin.string.utf8.contains(where: isForbidden), "forbidden byte in \(origin.string.debugDescription)")
        require(origin.scheme == "http" || origin.scheme == "https")
        require(origin.port.map { (1...65535).contains($0) } ?? true, "port \(String(describing: origin.port))")
        let again = try? OriginURL(validating: origin.string)
        require(again == origin, "\(origin.string.debugDescription) is not stable under OriginURL")
    }
    return 0
}

/// `precondition` that keeps its message in optimized builds, so a finding says what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant broken") {
    if !condition { fatalError(message()) }
}

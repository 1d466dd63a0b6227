import CachePolicy
import HTTPCore

/// Factories for the policy tests: a fixed clock and responses built from a few fields.
enum Fixture {
    /// 2023-11-14T22:13:20Z, the instant every test's clock starts at.
    static let t0: Int64 = 1_700_000_000

    /// An IMF-fixdate for `t0 + offset`.
    static func date(_ offset: Int64) -> String {
        HTTPDate(secondsSinceEpoch: t0 + offset).imfFixdate
    }

    /// A stored response received at `t0 + receivedAt` (sent `delay` seconds earlier), with a `Date`
    /// of the receive time unless the headers give one (pass `("Date", "")` to omit it).
    static func response(
        status: Int = 200,
        _ fields: [(String, String)] = [],
        method: HTTPMethod = .get,
        receivedAt: Int64 = 0,
        delay: Int64 = 0
    ) -> ResponseFacts {
        var headers = HTTPHeaders(fields.filter { !($0.0 == "Date" && $0.1.isEmpty) })
        if !fields.contains(where: { $0.0 == "Date" }) {
            headers.add(name: "Date", value: date(receivedAt))
        }
        return ResponseFacts(
            requestMethod: method, status: status, headers: headers,
            requestTime: t0 + receivedAt - delay, responseTime: t0 + receivedAt, targets: .standard)
    }
}

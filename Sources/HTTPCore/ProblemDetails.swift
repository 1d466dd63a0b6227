/// An RFC 9457 problem details object, rendered as `application/problem+json`.
public struct ProblemDetails: Sendable, Equatable {
    /// The media type of a rendered problem.
    public static let mediaType = "application/problem+json"

    /// A stable URI naming the kind of problem (RFC 9457 §3.1.1).
    public var type: String
    /// A short summary of the kind of problem.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// What went wrong on this occasion, for a human.
    public var detail: String?
    /// Extra members, rendered as strings.
    public var extensions: [(String, String)]

    /// Creates a problem.
    public init(type: String, title: String, status: Int, detail: String? = nil, extensions: [(String, String)] = []) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.extensions = extensions
    }

    public static func == (lhs: ProblemDetails, rhs: ProblemDetails) -> Bool {
        lhs.type == rhs.type && lhs.title == rhs.title && lhs.status == rhs.status && lhs.detail == rhs.detail
            && lhs.extensions.elementsEqual(rhs.extensions, by: { $0 == $1 })
    }

    /// The problem as JSON text; every string is escaped, so input echoed in `detail` cannot break out.
    public var json: String {
        var members = ["\"type\":\(type.jsonQuoted)", "\"title\":\(title.jsonQuoted)", "\"status\":\(status)"]
        if let detail { members.append("\"detail\":\(detail.jsonQuoted)") }
        for (name, value) in extensions { members.append("\(name.jsonQuoted):\(value.jsonQuoted)") }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A problem body with `instance` (RFC 9457 §3.1.5) added as its last member.
    /// - Parameters:
    ///   - json: a problem as `json` renders it (an object).
    ///   - instance: a URI reference; it must need no JSON escaping (a URI's characters do not).
    /// - Returns: the object with the member, or `json` unchanged when it is not an object.
    public static func addingInstance(_ instance: String, to json: [UInt8]) -> [UInt8] {
        guard json.last == UInt8(ascii: "}"), json.count >= 2 else { return json }
        var out: [UInt8] = []
        out.reserveCapacity(json.count + instance.utf8.count + 14)
        out.append(contentsOf: json.dropLast())
        if json.count > 2 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: "\"instance\":\"".utf8)
        out.append(contentsOf: instance.utf8)
        out.append(contentsOf: "\"}".utf8)
        return out
    }

    /// A complete response carrying this problem.
    public func makeResponse(headers extra: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = extra
        headers.replaceOrAdd(name: "Content-Type", value: ProblemDetails.mediaType)
        headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        var response = HTTPResponse(status: HTTPStatus(code: status), headers: headers, body: .bytes(Array(json.utf8)))
        response.isProblem = true
        return response
    }
}

extension String {
    /// The string as a JSON string literal (RFC 8259 §7), with every control character escaped.
    public var jsonQuoted: String {
        var out = "\""
        out.reserveCapacity(utf8.count + 2)
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}", "\u{2029}":
                out += "\\u" + String(scalar.value, radix: 16)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

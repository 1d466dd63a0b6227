import CCurl
import HTTPCore

/// Owns a `curl_slist` of request header lines (https://curl.se/libcurl/c/curl_slist_append.html).
final class CurlHeaderList {
    /// The list head, `nil` when empty; valid for the life of this object.
    private(set) var list: UnsafeMutablePointer<curl_slist>?

    /// Builds the list from raw lines (`Name: value`, `Name;` for an empty value, `Name:` to suppress).
    init(lines: [String]) {
        for line in lines { append(line) }
    }

    /// The lines of an origin request's fields as libcurl wants them: `Name;` sends an empty value
    /// (`Name:` would remove the field), `Accept:` suppresses curl's default `Accept: */*` when the caller
    /// sent none. With a body, `Content-Type:` suppresses the form type curl would invent for a caller who
    /// named none, and `Expect:` its `100-continue` round trip (the body is in memory already, bounded by
    /// `--max-body-bytes`).
    ///
    /// Each line is written into one scratch buffer and copied by libcurl: a `String` a line, then an
    /// array of them, cost about 5 000 instructions of every miss (callgrind).
    /// - Parameters:
    ///   - headers: the fields to send (already checked: tokens for names, no CR, LF or NUL in values).
    ///   - sendsBody: whether the request carries content.
    init(headers: HTTPHeaders, sendsBody: Bool) {
        var line: [CChar] = []
        line.reserveCapacity(256)
        for field in headers {
            line.removeAll(keepingCapacity: true)
            var name = field.name
            var value = field.value
            name.withUTF8 { line.append(contentsOf: UnsafeRawBufferPointer($0).bindMemory(to: CChar.self)) }
            if value.isEmpty {
                line.append(CChar(UInt8(ascii: ";")))
            } else {
                line.append(CChar(UInt8(ascii: ":")))
                line.append(CChar(UInt8(ascii: " ")))
                value.withUTF8 { line.append(contentsOf: UnsafeRawBufferPointer($0).bindMemory(to: CChar.self)) }
            }
            line.append(0)
            line.withUnsafeBufferPointer { append($0.baseAddress!) }
        }
        if !headers.contains("Accept") { append("Accept:") }
        if sendsBody {
            if !headers.contains("Content-Type") { append("Content-Type:") }
            append("Expect:")
        }
    }

    deinit { curl_slist_free_all(list) }

    /// The lines, in order, as libcurl will send them.
    var lines: [String] {
        var lines: [String] = []
        var node = list
        while let current = node {
            lines.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return lines
    }

    private func append(_ line: UnsafePointer<CChar>) {
        guard let appended = curl_slist_append(list, line) else { return }
        list = appended
    }

    private func append(_ line: String) {
        line.withCString { append($0) }
    }
}

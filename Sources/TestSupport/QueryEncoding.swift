import Foundation

/// How tests write a query parameter's value: the one encoder of the test targets.
public enum QueryEncoding {
    /// `value` with every byte outside RFC 3986's unreserved set (§2.3) percent-encoded, so that it can stand
    /// as a query parameter's value (`/fetch?url=…`).
    /// - Parameter value: the text.
    /// - Returns: the encoded text.
    public static func value(_ value: String) -> String {
        value.utf8.map { byte -> String in
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            return unreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }
}

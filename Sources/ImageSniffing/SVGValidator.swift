/// Recognises SVG as text and, when SVG is allowed, checks that the text is whole.
///
/// Recognition follows what may precede the root element in an XML document
/// ([XML 1.0 §2.8](https://www.w3.org/TR/xml/#sec-prolog-dtd)): an optional UTF-8 byte order mark,
/// whitespace, the XML declaration and processing instructions, comments and a doctype (with an
/// internal subset), then `<svg` ending the name. Validation adds that the bytes are UTF-8 and end
/// with `</svg>` (whitespace after it allowed), which catches truncation. Dimensions are not read:
/// SVG has no intrinsic pixel size, so `ImageInfo` reports 0 × 0.
enum SVGValidator {
    static func looksLikeSVG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while true {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
            if rest.starts(with: "<?".utf8) {
                guard let end = find("?>", in: bytes, from: index + 2) else { return false }
                index = end
            } else if rest.starts(with: "<!--".utf8) {
                guard let end = find("-->", in: bytes, from: index + 4) else { return false }
                index = end
            } else if rest.count >= 9, rest.prefix(9).map(lowercased).elementsEqual("<!doctype".utf8) {
                guard let end = doctypeEnd(bytes, from: index + 9) else { return false }
                index = end
            } else if rest.starts(with: "<svg".utf8) {
                guard rest.count > 4 else { return false }
                return isSpace(rest[4]) || rest[4] == UInt8(ascii: ">") || rest[4] == UInt8(ascii: "/")
            } else {
                return false
            }
        }
    }

    static func validate(_ bytes: UnsafeRawBufferPointer) throws(ImageRejection) -> ImageInfo {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: break decoding
            case .error: throw ImageRejection(format: .svg, reason: .svgBadEncoding, detail: "bytes are not UTF-8")
            }
        }
        var end = bytes.count
        while end > 0, isSpace(bytes[end - 1]) { end -= 1 }
        guard end > 0, bytes[end - 1] == UInt8(ascii: ">") else { throw missingEndTag() }
        end -= 1
        while end > 0, isSpace(bytes[end - 1]) { end -= 1 }
        guard end >= 5, UnsafeRawBufferPointer(rebasing: bytes[(end - 5)..<end]).elementsEqual("</svg".utf8) else {
            throw missingEndTag()
        }
        return ImageInfo(format: .svg, width: 0, height: 0)
    }

    private static func missingEndTag() -> ImageRejection {
        ImageRejection(format: .svg, reason: .svgMissingEndTag, detail: "the text does not end with </svg>")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// The index just after the first `literal` at or after `start`.
    private static func find(_ literal: StaticString, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let needle = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        var index = start
        while index + needle.count <= bytes.count {
            if UnsafeRawBufferPointer(rebasing: bytes[index..<index + needle.count]).elementsEqual(needle) {
                return index + needle.count
            }
            index += 1
        }
        return nil
    }

    /// The index after a doctype's closing `>`, skipping an internal subset in brackets and quotes.
    private static func doctypeEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        var depth = 0
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">") where depth <= 0: return index
            default: break
            }
        }
        return nil
    }
}

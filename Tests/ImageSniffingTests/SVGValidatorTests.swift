import ImageSniffing
import Testing

@Suite struct SVGValidatorTests {
    static let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect/></svg>"#

    static let recognised: [String] = [
        svg,
        "\u{FEFF}" + svg,
        "\n  \t" + svg + "\n",
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + svg,
        "<!-- made by hand -->" + svg,
        #"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">"# + svg,
        #"<?xml version="1.0"?><!doctype svg [ <!ENTITY a "<b>"> ]><!-- x --><svg>"# + "</svg>",
        "<svg/>",
    ]

    static let notSVG: [String] = [
        "<!DOCTYPE html><html><body><svg></svg></body></html>",
        "<html><svg></svg></html>",
        "<svgx></svgx>",
        "<!-- unterminated comment <svg></svg>",
        "svg",
        #"{"svg": true}"#,
        "",
    ]

    @Test(arguments: recognised) func svgTextIsRecognised(_ text: String) {
        #expect(ImageValidator.sniff(Array(text.utf8)) == .svg)
    }

    @Test(arguments: notSVG) func otherTextIsNotSVG(_ text: String) {
        #expect(ImageValidator.sniff(Array(text.utf8)) == nil)
        #expect(ImageValidator().validate(Array(text.utf8)).rejection?.reason == .unknownFormat)
    }

    @Test(arguments: recognised.dropLast()) func svgIsRefusedUnlessAllowed(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(
            ImageValidator().validate(bytes)
                == .invalid(
                    ImageRejection(
                        format: .svg, reason: .svgNotAllowed, detail: "SVG is refused unless allowed")))
        #expect(ImageValidator(allowSVG: true).validate(bytes) == .valid(ImageInfo(format: .svg, width: 0, height: 0)))
    }

    @Test func truncatedSVGIsRejectedWhenAllowed() {
        let bytes = Array(Self.svg.utf8)
        for length in 5..<(bytes.count - 1) {
            let reason = ImageValidator(allowSVG: true).validate(bytes[..<length]).rejection?.reason
            #expect(reason == .svgMissingEndTag, "\(length)")
        }
    }

    @Test func svgThatIsNotUTF8IsRejected() {
        let bytes = Array("<svg>".utf8) + [0xC3, 0x28] + Array("</svg>".utf8)
        #expect(ImageValidator(allowSVG: true).validate(bytes).rejection?.reason == .svgBadEncoding)
    }
}

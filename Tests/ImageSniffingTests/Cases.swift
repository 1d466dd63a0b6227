import ImageSniffing
import Testing

/// A file that must be accepted with the given format and size.
struct ValidCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var format: ImageFormat
    var width: Int
    var height: Int

    init(_ name: String, _ bytes: [UInt8], _ format: ImageFormat, _ width: Int, _ height: Int) {
        (self.name, self.bytes, self.format, self.width, self.height) = (name, bytes, format, width, height)
    }

    var testDescription: String { name }

    func check(with validator: ImageValidator = ImageValidator(), sourceLocation: SourceLocation = #_sourceLocation) {
        let verdict = validator.validate(bytes)
        #expect(
            verdict == .valid(ImageInfo(format: format, width: width, height: height)), "\(name)",
            sourceLocation: sourceLocation)
        #expect(ImageValidator.sniff(bytes.prefix(32)) == format, "\(name) sniffed", sourceLocation: sourceLocation)
    }
}

/// A file that must be refused with the given reason code.
struct InvalidCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var reason: ImageRejection.Reason

    init(_ name: String, _ bytes: [UInt8], _ reason: ImageRejection.Reason) {
        (self.name, self.bytes, self.reason) = (name, bytes, reason)
    }

    var testDescription: String { name }

    func check(with validator: ImageValidator = ImageValidator(), sourceLocation: SourceLocation = #_sourceLocation) {
        let verdict = validator.validate(bytes)
        #expect(verdict.rejection?.reason == reason, "\(name): \(verdict)", sourceLocation: sourceLocation)
    }
}

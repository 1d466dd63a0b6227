import ImageSniffing
import TestSupport
import Testing

@testable import LarderAPI

/// The per-process verdicts on stored images read back: a body is validated on its first read only, for
/// the SVG permission it was validated under, and a refused body is never remembered.
@Suite struct ImageReadVerdictsTests {
    static let validator = ImageValidator(depth: .structure)
    static let body = ImageReadVerdicts.StoredBody(bodyID: 7, crc32: 0x1234_5678, allowSVG: false)

    @Test func aSoundBodyIsValidatedOnItsFirstReadOnly() {
        let verdicts = ImageReadVerdicts()
        #expect(verdicts.rejection(of: ImageSamples.png1x1, body: Self.body, validator: Self.validator) == nil)
        #expect(verdicts.rejection(of: ImageSamples.png1x1, body: Self.body, validator: Self.validator) == nil)
        #expect(verdicts.runs == 1)
        #expect(verdicts.count == 1)
    }

    @Test(arguments: [
        ImageReadVerdicts.StoredBody(bodyID: 8, crc32: 0x1234_5678, allowSVG: false),
        ImageReadVerdicts.StoredBody(bodyID: 7, crc32: 0x8765_4321, allowSVG: false),
        ImageReadVerdicts.StoredBody(bodyID: 7, crc32: 0x1234_5678, allowSVG: true),
    ])
    func anotherBodyOrPermissionIsValidatedAgain(other: ImageReadVerdicts.StoredBody) {
        let verdicts = ImageReadVerdicts()
        _ = verdicts.rejection(of: ImageSamples.png1x1, body: Self.body, validator: Self.validator)
        _ = verdicts.rejection(of: ImageSamples.png1x1, body: other, validator: Self.validator)
        #expect(verdicts.runs == 2)
    }

    @Test func aRefusedBodyIsRefusedOnEveryRead() {
        let verdicts = ImageReadVerdicts()
        let bytes = Array("not an image".utf8)
        for _ in 0..<2 {
            #expect(verdicts.rejection(of: bytes, body: Self.body, validator: Self.validator) != nil)
        }
        #expect(verdicts.runs == 2)
        #expect(verdicts.count == 0)
    }

    @Test func aFullMemoStartsOverAndAnEmptyOneKeepsNothing() {
        let small = ImageReadVerdicts(capacity: 2)
        for id in 1...3 {
            let body = ImageReadVerdicts.StoredBody(bodyID: Int64(id), crc32: 0, allowSVG: false)
            _ = small.rejection(of: ImageSamples.png1x1, body: body, validator: Self.validator)
        }
        #expect(small.count == 1)
        let none = ImageReadVerdicts(capacity: 0)
        for _ in 0..<2 { _ = none.rejection(of: ImageSamples.png1x1, body: Self.body, validator: Self.validator) }
        #expect(none.runs == 2)
        #expect(none.count == 0)
    }
}

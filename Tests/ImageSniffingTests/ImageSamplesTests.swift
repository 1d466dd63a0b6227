import ImageSniffing
import TestSupport
import Testing

/// The shared samples other suites rely on are what they claim to be.
@Suite struct ImageSamplesTests {
    @Test(arguments: [
        (ImageSamples.png1x1, ImageInfo(format: .png, width: 1, height: 1)),
        (ImageSamples.jpeg8x8, ImageInfo(format: .jpeg, width: 8, height: 8)),
        (ImageSamples.gif1x1, ImageInfo(format: .gif, width: 1, height: 1)),
    ])
    func sampleIsValidAndItsDamagedCopyIsNot(bytes: [UInt8], info: ImageInfo) {
        #expect(ImageValidator().validate(bytes) == .valid(info))
        #expect(ImageValidator().validate(ImageSamples.damaged(bytes)).rejection != nil)
    }
}

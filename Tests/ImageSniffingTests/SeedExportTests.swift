import Foundation
import ImageSniffing
import Testing

/// Writes the crafted files into the fuzz seed corpus when asked:
/// `IMAGE_SNIFFING_EXPORT_SEEDS=Fuzz/ImageSniffing/seeds swift test --filter SeedExportTests`.
@Suite(
    .enabled(if: ProcessInfo.processInfo.environment["IMAGE_SNIFFING_EXPORT_SEEDS"] != nil, "export only on request"))
struct SeedExportTests {
    static let seeds: [(String, [UInt8])] = [
        ("crafted.png", Crafted.png()),
        ("crafted-progressive.jpg", Crafted.jpeg(progressive: true)),
        ("crafted.gif", Crafted.gif()),
        ("crafted-core.bmp", Crafted.coreBMP()),
        ("crafted-top-down.bmp", Crafted.bmp(height: -2)),
        ("crafted-big-endian.tiff", Crafted.tiff(bigEndian: true)),
        ("crafted-dib.cur", Crafted.icon(type: 2, images: [(4, 4, Crafted.iconDIB())])),
        ("crafted-dib8.ico", Crafted.icon(images: [(2, 2, Crafted.iconDIB(width: 2, height: 2, bitCount: 8))])),
        ("crafted-animated.webp", WebPValidatorTests.valid[4].bytes),
        ("crafted-vp8x.webp", WebPValidatorTests.valid[2].bytes),
        ("crafted.heic", Crafted.HEIF().bytes()),
        ("crafted-large-size.avif", Crafted.HEIF(brands: ["avif", "mif1"], mdatStyle: .largeSize).bytes()),
        ("crafted.svg", Array(SVGValidatorTests.recognised[6].utf8)),
    ]

    @Test func writesCraftedSeeds() throws {
        let directory = try #require(ProcessInfo.processInfo.environment["IMAGE_SNIFFING_EXPORT_SEEDS"])
        for (name, bytes) in Self.seeds {
            #expect(ImageValidator(allowSVG: true).validate(bytes).info != nil, "\(name)")
            try Data(bytes).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
    }
}

import ImageSniffing
import Testing

@Suite struct HEIFValidatorTests {
    static func heif(_ change: (inout Crafted.HEIF) -> Void = { _ in }) -> [UInt8] {
        var file = Crafted.HEIF()
        change(&file)
        return file.bytes()
    }

    static let valid: [ValidCase] = [
        ValidCase("heic", heif(), .heic, 6, 4),
        ValidCase("avif", heif { $0.brands = ["avif", "mif1", "miaf"] }, .avif, 6, 4),
        ValidCase("avifAsCompatibleBrand", heif { $0.brands = ["mif1", "avif"] }, .avif, 6, 4),
        ValidCase("avifSequenceBrand", heif { $0.brands = ["avis", "msf1"] }, .avif, 6, 4),
        ValidCase("heix", heif { $0.brands = ["heix", "mif1"] }, .heic, 6, 4),
        ValidCase("mdatWith64BitSize", heif { $0.mdatStyle = .largeSize }, .heic, 6, 4),
        ValidCase("mdatToTheEnd", heif { $0.mdatStyle = .toEnd }, .heic, 6, 4),
        ValidCase("large", heif { ($0.width, $0.height) = (8000, 6000) }, .heic, 8000, 6000),
    ]

    static let invalid: [InvalidCase] = [
        InvalidCase("primaryNotListed", heif { $0.primary = 2 }, .heifMissingPrimaryItem),
        InvalidCase("noIloc", heif { $0.includeIloc = false }, .heifMissingPrimaryItem),
        InvalidCase("ispeNotAssociated", heif { $0.associate = false }, .heifMissingDimensions),
        InvalidCase("extentPastTheEnd", heif { $0.extentLengthExtra = 1 }, .truncated),
        InvalidCase("zeroWidth", heif { $0.width = 0 }, .zeroDimension),
        InvalidCase("bomb", heif { ($0.width, $0.height) = (60_000, 60_000) }, .pixelLimit),
        InvalidCase("noMeta", Array(heif().prefix(24)), .heifMissingPrimaryItem),
        InvalidCase("boxSmallerThanHeader", Array(heif().prefix(24)) + be32(4) + ascii("free"), .heifBadBox),
        InvalidCase("boxPastTheEnd", Array(heif().prefix(24)) + be32(400) + ascii("meta"), .truncated),
        InvalidCase(
            "mdat64BitSizePastTheEnd",
            Array(heif().prefix(24)) + be32(1) + ascii("mdat") + be64(0x7FFF_FFFF_FFFF_FFFF), .truncated),
        InvalidCase("unknownBrands", heif { $0.brands = ["isom", "mp41"] }, .unknownFormat),
        // A movie is not an image because it lists an image brand as compatible.
        InvalidCase("videoMajorBrandWithAVIF", heif { $0.brands = ["isom", "avif", "mif1"] }, .unknownFormat),
        InvalidCase("mp41MajorBrandWithHEIC", heif { $0.brands = ["mp41", "heic", "mif1"] }, .unknownFormat),
        InvalidCase("quickTimeWithAVIF", heif { $0.brands = ["qt  ", "avif"] }, .unknownFormat),
        InvalidCase("dashWithHEIC", heif { $0.brands = ["dash", "heic"] }, .unknownFormat),
        InvalidCase("ftypNotFirst", Crafted.box("free", []) + heif(), .unknownFormat),
    ]

    @Test(arguments: valid) func validHEIFIsAcceptedWithItsSize(_ item: ValidCase) { item.check() }
    @Test(arguments: invalid) func damagedHEIFIsRejectedWithItsReason(_ item: InvalidCase) { item.check() }

    @Test func everyPrefixOfACraftedHEICIsRejected() {
        let bytes = Self.heif()
        for length in 12..<bytes.count {
            let reason = ImageValidator().validate(bytes[..<length]).rejection?.reason
            // Cut after a whole box, the file has lost its meta or its media data.
            #expect(
                reason == .truncated || reason == .heifMissingPrimaryItem, "\(length): \(String(describing: reason))")
        }
    }
}

// libFuzzer entry for the ImageSniffing validators (Fuzz/run.sh ImageSniffing). Crashes, sanitizer
// reports and broken invariants are findings; a rejection is an ordinary outcome.
import ImageSniffing

/// Validates one input every way the service can, then checks what must hold of any verdict.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageSniffing(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let sniffed = ImageValidator.sniff(bytes)
    let prefixSniffed = ImageValidator.sniff(UnsafeRawBufferPointer(rebasing: bytes.prefix(32)))
    let strict = ImageValidator(limits: .default, allowSVG: false).validate(bytes)
    let lenient = ImageValidator(limits: ImageValidationLimits(maxPixels: .max, maxDimension: .max), allowSVG: true)
        .validate(bytes)

    if let info = strict.info {
        // A valid image is of the format sniffing names, within the limits, and SVG was not allowed.
        require(
            info.format == sniffed && info.format != .svg,
            "format \(info.format) vs sniff \(String(describing: sniffed))")
        require(
            info.width > 0 && info.height > 0 && info.width * info.height <= ImageValidationLimits.default.maxPixels)
        require(lenient.info == info, "looser limits changed a valid verdict")
        // Formats but HEIF are recognised from 32 bytes (HEIF needs its whole ftyp box).
        require(
            prefixSniffed == info.format || info.format == .avif || info.format == .heic, "32-byte sniff disagrees")
    }
    if strict.rejection?.reason == .unknownFormat { require(sniffed == nil) }
    return 0
}

/// `precondition` that keeps its message in optimized builds, so a finding says what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant broken") {
    if !condition { fatalError(message()) }
}

import Zlib

/// The image data of a PNG: the one zlib stream its `IDAT` chunks carry, inflated as the chunks come and
/// checked against the `IHDR` geometry, without unfiltering or decoding a pixel.
///
/// The inflated stream must be exactly the scanlines the header describes
/// ([PNG (Third Edition) §7.2](https://www.w3.org/TR/png-3/#7Scanline), one filter-type byte before each
/// row; per pass for Adam7, [§8.2](https://www.w3.org/TR/png-3/#8Interlace)), each filter type one of the
/// five of [§9.2](https://www.w3.org/TR/png-3/#9Filter-types), and the stream must end, with its Adler-32,
/// exactly where the last `IDAT` does. Inflating is streamed through one small buffer: the output is
/// bounded by the geometry (a byte more is a refusal, never an allocation) and none of it is kept.
///
/// A class because it owns that buffer; one validation at a time.
final class PNGImageData {
    /// Bytes per scanline and scanline count of each non-empty pass (one for a non-interlaced image).
    let passes: [(rows: Int, rowBytes: Int)]
    /// The inflated length the geometry calls for.
    let expectedLength: Int
    private let inflater: Inflater
    /// Where each piece of the image data is inflated, then looked at and dropped.
    private let buffer: UnsafeMutableRawBufferPointer
    /// The position in the inflated stream of the next row's filter-type byte.
    private var nextFilterAt = 0
    private var pass = 0
    private var row = 0

    /// The size of that buffer.
    static let bufferSize = 32 << 10

    /// Prepares to inflate the image data of a header already checked against the size limits.
    /// - Parameters:
    ///   - width: the image width in pixels.
    ///   - height: the image height in pixels.
    ///   - bitsPerPixel: bit depth × samples per pixel.
    ///   - interlaced: Adam7 interlacing.
    /// - Throws: `ImageRejection` (`pixel-limit`) when the scanlines do not fit in memory addresses, or
    ///   `png.bad-idat` when zlib cannot start.
    init(width: Int, height: Int, bitsPerPixel: Int, interlaced: Bool) throws(ImageRejection) {
        let grids: [(x: Int, dx: Int, y: Int, dy: Int)] =
            interlaced
            ? [(0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2)]
            : [(0, 1, 0, 1)]
        var passes: [(rows: Int, rowBytes: Int)] = []
        var total = 0
        for grid in grids {
            let columns = width > grid.x ? (width - grid.x + grid.dx - 1) / grid.dx : 0
            let rows = height > grid.y ? (height - grid.y + grid.dy - 1) / grid.dy : 0
            guard columns > 0, rows > 0 else { continue }
            let (bits, bitsOverflow) = columns.multipliedReportingOverflow(by: bitsPerPixel)
            let (line, lineOverflow) = ((bits + 7) / 8 + 1).multipliedReportingOverflow(by: rows)
            let (sum, sumOverflow) = total.addingReportingOverflow(line)
            guard !bitsOverflow, !lineOverflow, !sumOverflow else {
                throw ImageRejection(
                    format: .png, reason: .pixelLimit, detail: "scanlines of \(width)×\(height) overflow")
            }
            passes.append((rows, (bits + 7) / 8))
            total = sum
        }
        self.passes = passes
        expectedLength = total
        do {
            inflater = try Inflater(format: .zlib, outputLimit: total)
        } catch {
            throw Self.rejection("zlib cannot start: \(error)")
        }
        // Last: an init that throws never reaches deinit.
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 1)
    }

    deinit { buffer.deallocate() }

    /// Inflates the data of one `IDAT` chunk.
    /// - Parameters:
    ///   - data: the chunk's data.
    ///   - chunkStart: the chunk's offset in the file, for the rejection's detail.
    /// - Throws: `ImageRejection` (`png.bad-idat`) for a corrupt stream, more data than the geometry
    ///   holds, a bad filter type, or bytes after the end of the stream.
    func append(_ data: UnsafeRawBufferPointer, chunkStart: Int) throws(ImageRejection) {
        var badFilter: String?
        do {
            try inflater.inflate(data, through: buffer) { piece in
                badFilter = checkFilterTypes(piece)
                return badFilter == nil
            }
        } catch {
            throw Self.rejection(describe(error, at: chunkStart))
        }
        if let badFilter { throw Self.rejection(badFilter) }
    }

    /// Checks that the stream ended with the last `IDAT` and filled the geometry exactly.
    /// - Throws: `ImageRejection` (`png.bad-idat`) for a stream cut short.
    func finish() throws(ImageRejection) {
        guard inflater.isFinished else {
            throw Self.rejection(
                "the zlib stream does not end in the last IDAT (\(inflater.totalOut) of \(expectedLength) bytes)")
        }
        guard inflater.totalOut == expectedLength else {
            throw Self.rejection(
                "the image data holds \(inflater.totalOut) bytes, the header calls for \(expectedLength)")
        }
    }

    /// Checks the filter-type byte of every row that begins in the piece just inflated (the last piece
    /// of the stream so far).
    /// - Returns: what is wrong, or `nil`.
    private func checkFilterTypes(_ piece: UnsafeRawBufferPointer) -> String? {
        let end = inflater.totalOut
        let base = end - piece.count
        while pass < passes.count, nextFilterAt < end {
            let filter = piece[nextFilterAt - base]
            guard filter <= 4 else { return "filter type \(filter) at row \(row) of pass \(pass + 1)" }
            nextFilterAt += 1 + passes[pass].rowBytes
            row += 1
            if row == passes[pass].rows {
                pass += 1
                row = 0
            }
        }
        return nil
    }

    private func describe(_ error: ZlibError, at chunkStart: Int) -> String {
        switch error.kind {
        case .outputLimitExceeded:
            "the image data inflates past the \(expectedLength) bytes the header calls for (IDAT at offset \(chunkStart))"
        case .trailingBytes(let count):
            "\(count) bytes follow the end of the zlib stream (IDAT at offset \(chunkStart))"
        default:
            "corrupt zlib stream in the IDAT at offset \(chunkStart): \(error.message ?? error.description)"
        }
    }

    private static func rejection(_ detail: String) -> ImageRejection {
        ImageRejection(format: .png, reason: .pngBadImageData, detail: detail)
    }
}

/// The item boxes of a HEIF `meta` box, located once and read on demand (ISO/IEC 23008-12 §9).
struct HEIFItems {
    private let format: ImageFormat
    private var primaryID: UInt32 = 0
    private var iinf: ISOBox?
    private var iloc: ISOBox?
    private var iprp: ISOBox?
    private var idatLength: Int?

    init(meta: ISOBox, format: ImageFormat) throws(ImageRejection) {
        self.format = format
        var payload = meta.payload
        _ = try ISOBox.readFullBoxHeader(&payload)
        var pitm: ISOBox?
        while !payload.isAtEnd {
            let box = try ISOBox(&payload, fileOffset: meta.payloadFileOffset)
            switch box.type {
            case fourCC("pitm"): pitm = box
            case fourCC("iinf"): iinf = box
            case fourCC("iloc"): iloc = box
            case fourCC("iprp"): iprp = box
            case fourCC("idat"): idatLength = box.payload.count
            default: break
            }
        }
        guard var pitm = pitm?.payload, iinf != nil, iloc != nil else {
            throw payload.rejection(.heifMissingPrimaryItem, "meta lacks pitm, iinf or iloc")
        }
        let (version, _) = try ISOBox.readFullBoxHeader(&pitm)
        primaryID = version == 0 ? UInt32(try pitm.readUInt16(.bigEndian)) : try pitm.readUInt32(.bigEndian)
        try findPrimaryInfo()
    }

    private func rejection(_ reason: ImageRejection.Reason, _ detail: String) -> ImageRejection {
        ImageRejection(format: format, reason: reason, detail: detail)
    }

    /// Checks that `iinf` lists the primary item (§9.3.6 `infe`).
    private func findPrimaryInfo() throws(ImageRejection) {
        guard let iinf else { return }
        var payload = iinf.payload
        let (version, _) = try ISOBox.readFullBoxHeader(&payload)
        try payload.skip(version == 0 ? 2 : 4)  // entry count: the boxes that follow are authoritative
        while !payload.isAtEnd {
            let box = try ISOBox(&payload, fileOffset: iinf.payloadFileOffset)
            guard box.type == fourCC("infe") else { continue }
            var infe = box.payload
            let (infeVersion, _) = try ISOBox.readFullBoxHeader(&infe)
            let id = infeVersion >= 3 ? try infe.readUInt32(.bigEndian) : UInt32(try infe.readUInt16(.bigEndian))
            if id == primaryID { return }
        }
        throw rejection(.heifMissingPrimaryItem, "iinf does not list primary item \(primaryID)")
    }

    /// Checks every extent `iloc` lists against the file or `idat` (§8.11.3), and that the primary
    /// item is located.
    func checkLocations(fileSize: Int) throws(ImageRejection) {
        guard var payload = iloc?.payload else { return }
        let (version, _) = try ISOBox.readFullBoxHeader(&payload)
        guard version <= 2 else { throw rejection(.heifBadBox, "iloc version \(version)") }
        let sizes = try payload.readUInt8()
        let moreSizes = try payload.readUInt8()
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0x0F), baseSize = Int(moreSizes >> 4)
        let indexSize = version == 0 ? 0 : Int(moreSizes & 0x0F)
        for size in [offsetSize, lengthSize, baseSize, indexSize] where ![0, 4, 8].contains(size) {
            throw rejection(.heifBadBox, "iloc field size \(size)")
        }
        let count = version < 2 ? Int(try payload.readUInt16(.bigEndian)) : Int(try payload.readUInt32(.bigEndian))
        var locatedPrimary = false
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try payload.readUInt16(.bigEndian)) : try payload.readUInt32(.bigEndian)
            let method = version == 0 ? 0 : try payload.readUInt16(.bigEndian) & 0x0F
            try payload.skip(2)  // data reference index: 0 is this file
            let base = try payload.readUIntBigEndian(width: baseSize)
            let extents = Int(try payload.readUInt16(.bigEndian))
            if id == primaryID { locatedPrimary = true }
            for _ in 0..<extents {
                try payload.skip(indexSize)
                let offset = try payload.readUIntBigEndian(width: offsetSize)
                let length = try payload.readUIntBigEndian(width: lengthSize)
                let limit: Int? =
                    switch method {
                    case 0: fileSize
                    case 1: idatLength ?? 0
                    default: nil  // item-offset construction: checked through the referenced item
                    }
                guard let limit else { continue }
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow, start <= UInt64(limit), length <= UInt64(limit) - start else {
                    throw rejection(.truncated, "item \(id) extent \(start)+\(length) past the end (\(limit) bytes)")
                }
            }
        }
        guard locatedPrimary else { throw rejection(.heifMissingPrimaryItem, "iloc does not locate item \(primaryID)") }
    }

    /// The `ispe` of the primary item (§6.5.3), found through `ipma` associations into `ipco`.
    func primaryImageSize() throws(ImageRejection) -> (width: Int, height: Int) {
        guard let iprp else { throw rejection(.heifMissingDimensions, "no iprp box") }
        var ipco: ISOBox?
        var ipmas = iprp.payload
        var children = iprp.payload
        while !children.isAtEnd {
            let box = try ISOBox(&children, fileOffset: iprp.payloadFileOffset)
            if box.type == fourCC("ipco"), ipco == nil { ipco = box }
        }
        // One bit per property index (15 bits at most): 4 KiB, whatever the file claims.
        var associated = [UInt64](repeating: 0, count: 512)
        while !ipmas.isAtEnd {
            let box = try ISOBox(&ipmas, fileOffset: iprp.payloadFileOffset)
            guard box.type == fourCC("ipma") else { continue }
            var ipma = box.payload
            let (version, flags) = try ISOBox.readFullBoxHeader(&ipma)
            let count = try ipma.readUInt32(.bigEndian)
            for _ in 0..<count {
                let id = version < 1 ? UInt32(try ipma.readUInt16(.bigEndian)) : try ipma.readUInt32(.bigEndian)
                let associations = try ipma.readUInt8()
                for _ in 0..<associations {
                    let index =
                        flags & 1 == 1
                        ? Int(try ipma.readUInt16(.bigEndian) & 0x7FFF) : Int(try ipma.readUInt8() & 0x7F)
                    if id == primaryID { associated[index >> 6] |= 1 << UInt64(index & 63) }
                }
            }
        }
        guard var properties = ipco?.payload else { throw rejection(.heifMissingDimensions, "no ipco box") }
        var index = 0
        while !properties.isAtEnd {
            let box = try ISOBox(&properties, fileOffset: ipco!.payloadFileOffset)
            index += 1
            guard box.type == fourCC("ispe"), index < 32768, associated[index >> 6] & 1 << UInt64(index & 63) != 0
            else { continue }
            var ispe = box.payload
            _ = try ISOBox.readFullBoxHeader(&ispe)
            return (Int(try ispe.readUInt32(.bigEndian)), Int(try ispe.readUInt32(.bigEndian)))
        }
        throw rejection(.heifMissingDimensions, "no ispe associated with primary item \(primaryID)")
    }
}

/// An ordered list of header fields with case-insensitive lookup by name.
///
/// Order and repetition are kept as received (RFC 9110 §5.3): a field line may appear several times and
/// the order of same-named lines carries meaning for list-valued fields.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// One field line as received or to be sent.
    public struct Field: Sendable, Equatable {
        /// The field name, as spelled by whoever set it.
        public var name: String { didSet { signature = NameSignature(name) } }
        /// The field value, without leading or trailing whitespace.
        public var value: String
        /// The name's length and first bytes folded to lower case, so that a lookup by name rejects
        /// (or, for names of up to 8 bytes, accepts) a line with one integer comparison.
        fileprivate private(set) var signature: NameSignature

        /// Creates a field line.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
            self.signature = NameSignature(name)
        }

        /// Creates a field line from its name's and value's bytes (as received or stored), reading the
        /// name's signature from the bytes. Bytes that are not UTF-8 are repaired as `String(decoding:)`
        /// does; the signature is then the repaired name's, as lookups by name compute it.
        public init(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            let text = String(decoding: name, as: UTF8.self)
            self.name = text
            self.value = String(decoding: value, as: UTF8.self)
            self.signature = text.utf8.count == name.count ? NameSignature(bytes: name) : NameSignature(text)
        }

        fileprivate func hasName(_ other: String, _ otherSignature: NameSignature) -> Bool {
            signature == otherSignature && (signature.length <= 8 || name.equalsIgnoringASCIICase(other))
        }
    }

    private var fields: [Field]

    /// Creates headers from field lines in order.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    /// Creates headers from field lines made already.
    public init(fields: [Field]) {
        self.fields = fields
    }

    /// Makes room for `count` field lines without growing again.
    /// - Parameter count: the number of lines expected.
    public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    /// The number of field lines.
    public var count: Int { fields.count }

    /// Whether there are no field lines.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates the field lines in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of the named field, or `nil`.
    public subscript(name: String) -> String? {
        firstIndex(of: name, NameSignature(name)).map { fields[$0].value }
    }

    /// Every value of the named field, in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        forEachValue(of: name, NameSignature(name)) { values.append($0) }
        return values
    }

    /// Calls `body` with the value of each line named `name`, in order.
    private func forEachValue(of name: String, _ signature: NameSignature, _ body: (String) -> Void) {
        var next = firstIndex(of: name, signature)
        while let index = next {
            body(fields[index].value)
            next = firstIndex(of: name, signature, from: index + 1)
        }
    }

    /// The position of the first line named `name` at or after `start`. Every lookup by name goes through
    /// here: it reads the lines where the array holds them. A loop that takes each line out as a value
    /// (`for field in fields`, `first(where:)`) retains and releases its name and value whenever the loop's
    /// body makes a call the compiler cannot see through (a lazily made global's first-use check is one):
    /// 30 to 60 instructions a line (docs/ARCHITECTURE.md, "A loop over a message's lines").
    private func firstIndex(of name: String, _ signature: NameSignature, from start: Int = 0) -> Int? {
        var index = start
        while index < fields.count {
            if fields[index].hasName(name, signature) { return index }
            index += 1
        }
        return nil
    }

    /// The named field's values split on commas, trimmed, empties dropped (RFC 9110 §5.6.1 lists).
    public func listValues(for name: String) -> [String] {
        var members: [String] = []
        // Most lists have one member (`Connection: keep-alive`, `Vary: Accept-Encoding`): the value itself.
        forEachListMember(of: name, NameSignature(name)) { value, member in
            members.append(member.count == value.utf8.count ? value : String(decoding: member, as: UTF8.self))
        }
        return members
    }

    /// Calls `body` with each member of the named list field's lines (RFC 9110 §5.6.1: split on commas, spaces
    /// and tabs trimmed, empty members skipped), as the line's value and the member's bytes in it. On bytes:
    /// splitting the String would walk Characters (grapheme breaking per step), which made this most of a
    /// miss's header handling. Commas, spaces and tabs are single-byte ASCII, so members end on scalar
    /// boundaries.
    private func forEachListMember(
        of name: String, _ signature: NameSignature, _ body: (String, UnsafeRawBufferPointer) -> Void
    ) {
        forEachValue(of: name, signature) { value in
            var contiguous = value
            contiguous.withUTF8 { bytes in
                var start = 0
                while start <= bytes.count {
                    var end = start
                    while end < bytes.count && bytes[end] != UInt8(ascii: ",") { end += 1 }
                    var first = start
                    var last = end
                    while first < last && (bytes[first] == 0x20 || bytes[first] == 0x09) { first += 1 }
                    while last > first && (bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09) { last -= 1 }
                    if first < last {
                        body(value, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[first..<last])))
                    }
                    start = end + 1
                }
            }
        }
    }

    /// Whether the named field is present.
    public func contains(_ name: String) -> Bool {
        firstIndex(of: name, NameSignature(name)) != nil
    }

    /// Appends a field line, keeping any existing ones of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Appends a field line made already (from bytes: `Field(name:value:)`).
    public mutating func add(_ field: Field) {
        fields.append(field)
    }

    /// Removes every line named like one of `replacements` and appends `replacements` in order: a set of
    /// fields the caller owns (Larder's marks on a cached answer), compared by the signatures their lines
    /// hold already.
    public mutating func replace(with replacements: HTTPHeaders) {
        let replaced = { (field: Field) in replacements.fields.contains { $0.hasName(field.name, field.signature) } }
        if fields.contains(where: replaced) { fields.removeAll(where: replaced) }
        fields.append(contentsOf: replacements.fields)
    }

    /// Removes every line of the named field and appends one with the value.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every line of any of the named fields, in one pass.
    /// - Parameter names: the field names (any case).
    public mutating func remove(names: [String]) {
        remove(FieldNames(names))
    }

    /// Removes every line of any of the named fields, in one pass, with the names' signatures made once
    /// (for lists removed on every response).
    /// - Parameter names: the field names.
    public mutating func remove(_ names: FieldNames) {
        guard fields.contains(where: { names.contains($0) }) else { return }
        fields.removeAll { names.contains($0) }
    }

    /// The field lines except those of `names`, copied in one pass into storage with room for `extra`
    /// more: a response built from stored fields, which then adds its own, allocates once.
    /// - Parameters:
    ///   - names: the fields left out.
    ///   - extra: how many lines the caller will add.
    public func removing(_ names: FieldNames, reservingExtra extra: Int) -> HTTPHeaders {
        var kept: [Field] = []
        kept.reserveCapacity(fields.count + extra)
        for field in fields where !names.contains(field) { kept.append(field) }
        return HTTPHeaders(fields: kept)
    }

    /// Removes every line of the named field.
    public mutating func remove(name: String) {
        let signature = NameSignature(name)
        fields.removeAll { $0.hasName(name, signature) }
    }
}

extension HTTPHeaders {
    /// The members of the `Connection` field (RFC 9110 §7.6.1), as sent (compare them folding ASCII
    /// case); empty, without allocating, when there is no such field.
    public var connectionOptions: [String] {
        firstIndex(of: "Connection", connectionSignature) == nil ? [] : listValues(for: "Connection")
    }

    /// Removes the lines of `names` and of every field the `Connection` field names (RFC 9110 §7.6.1): a
    /// message's hop-by-hop fields, with `names` the fixed list of a use (`Connection` among them). The lines
    /// stay shared with the original until one is removed: the usual message loses none and is not copied.
    /// - Parameter names: the fields always removed.
    public mutating func removeHopByHop(_ names: FieldNames) {
        let options = connectionOptions(outside: names)
        remove(names)
        // Most messages name only `keep-alive` or `close` (both among `names`): no second pass, and no
        // list prepared for it (two of them cost about 4 000 instructions of every miss).
        let named = options.filter { contains($0) }
        if !named.isEmpty { remove(FieldNames(named)) }
    }

    /// The members of the `Connection` field that `names` does not hold, read from the values' bytes: a
    /// member among `names` (the usual `keep-alive`) becomes no string, and none leaves the list unallocated.
    /// Three lists a miss (the relayed head, the stored one, the forwarded request) were 6 600 instructions.
    private func connectionOptions(outside names: FieldNames) -> [String] {
        var outside: [String] = []
        forEachListMember(of: "Connection", connectionSignature) { _, member in
            if !names.contains(bytes: member) { outside.append(String(decoding: member, as: UTF8.self)) }
        }
        return outside
    }

    /// The first `X-Request-Id` value. Asked on every request, so its name's signature is computed once.
    var requestIDValue: String? {
        firstIndex(of: HTTPRequestID.fieldName, requestIDSignature).map { fields[$0].value }
    }
}

private let requestIDSignature = NameSignature(HTTPRequestID.fieldName)
private let connectionSignature = NameSignature("Connection")

/// A list of field names prepared for matching field lines (any case), made once and kept: a `static let`
/// of the names a path removes from every response.
public struct FieldNames: Sendable {
    private let names: [String]
    fileprivate let signatures: [NameSignature]
    /// Bit `n` set when a name is `n` bytes long (bit 63: 63 or more): most lines of a message have a
    /// name of another length than every name of a list, and are passed over with one test instead of a
    /// comparison per name. A miss removes such lists five times (hop-by-hop fields, unstorable ones),
    /// which compared every line with every name: 8 000 of its instructions (callgrind, 32 callers).
    private let lengths: UInt64

    /// Prepares `names` (any case).
    public init(_ names: [String]) {
        self.names = names
        self.signatures = names.map(NameSignature.init)
        self.lengths = signatures.reduce(0) { $0 | Self.lengthBit($1.length) }
    }

    private static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(min(length, 63)) }

    /// How many names.
    public var count: Int { names.count }

    /// Whether `name` (any case) is one of the names.
    public func contains(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { contains(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether a name's bytes (any case) are one of the names.
    fileprivate func contains(bytes name: UnsafeRawBufferPointer) -> Bool {
        let signature = NameSignature(bytes: name)
        for index in signatures.indices where signatures[index] == signature {
            if signature.length <= 8 { return true }
            var known = names[index]
            let equal = known.withUTF8 { known in
                zip(known, name).allSatisfy { $0.asciiLowercased == $1.asciiLowercased }
            }
            if equal { return true }
        }
        return false
    }

    fileprivate func contains(_ field: HTTPHeaders.Field) -> Bool {
        guard lengths & Self.lengthBit(field.signature.length) != 0 else { return false }
        // The signatures first: a name is taken out of `names` (a retain and a release) only when its
        // length and first bytes match the line's.
        for index in signatures.indices where signatures[index] == field.signature {
            if field.signature.length <= 8 || field.name.equalsIgnoringASCIICase(names[index]) { return true }
        }
        return false
    }
}

/// A field name's length and its first 8 bytes folded to ASCII lower case, packed in a word: names
/// that differ in either differ, and names of up to 8 bytes are equal when their signatures are.
private struct NameSignature: Sendable, Equatable {
    let length: Int
    let prefix: UInt64

    init(_ name: String) {
        if let signature = name.utf8.withContiguousStorageIfAvailable({
            NameSignature(bytes: UnsafeRawBufferPointer($0))
        }) {
            self = signature
        } else {
            var name = name
            self = name.withUTF8 { NameSignature(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// The signature of a name's bytes: its first 8 bytes as one little-endian word, folded to lower
    /// case in one step (`SWAR.asciiLowercased`).
    init(bytes: UnsafeRawBufferPointer) {
        length = bytes.count
        var word: UInt64 = 0
        if bytes.count >= 8 {
            word = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        } else {
            for index in 0..<bytes.count { word |= UInt64(bytes[index]) << (8 * UInt64(index)) }
        }
        prefix = SWAR.asciiLowercased(word)
    }
}

extension String {
    /// Whether the string equals one of `names`, folding ASCII case (header names against a short list;
    /// most differ in length and are rejected without reading a byte).
    public func isAmong(_ names: [String]) -> Bool {
        names.contains { equalsIgnoringASCIICase($0) }
    }

    /// Compares two strings byte by byte, folding ASCII letters only (header names, tokens).
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        // Most names looked up differ in length from most names present; counting is O(1) for native
        // strings, so this rejects them without walking a byte.
        guard utf8.count == other.utf8.count else { return false }
        // Both sides as contiguous bytes (native and small strings always are): a byte loop, where the
        // iterators cost a call and a bounds check per byte.
        let compared = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs in
                for index in 0..<lhs.count {
                    let a = lhs[index]
                    let b = rhs[index]
                    if a != b && a.asciiLowercased != b.asciiLowercased { return false }
                }
                return true
            }
        }
        if let compared = compared ?? nil { return compared }
        var lhs = utf8.makeIterator()
        var rhs = other.utf8.makeIterator()
        while true {
            switch (lhs.next(), rhs.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if a != b && a.asciiLowercased != b.asciiLowercased { return false }
            default: return false
            }
        }
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs (RFC 9110 §5.6.3 OWS).
    public func trimmingHTTPWhitespace() -> String {
        // On bytes, not Characters: OWS is the bytes SP and HTAB, and walking Characters costs grapheme
        // breaking per step (callgrind: 1 700 instructions a header value). Only single-byte ASCII is
        // skipped, so both ends stay on scalar boundaries.
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        return String(self[start..<end])
    }
}

extension UInt8 {
    /// The byte with ASCII upper-case letters folded to lower case.
    @inlinable public var asciiLowercased: UInt8 {
        (self >= 0x41 && self <= 0x5A) ? self | 0x20 : self
    }
}

extension String {
    /// `bytes` as a string with ASCII upper-case letters folded to lower case, written once into a string
    /// of its final size (tokens, hosts and media types: ASCII, so no Unicode rules apply). Bytes that are
    /// not UTF-8 are repaired, as `String(decoding:as:)` does.
    @inlinable public init<Bytes: Collection<UInt8>>(asciiLowercasing bytes: Bytes) {
        self.init(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() { buffer[offset] = byte.asciiLowercased }
            return bytes.count
        }
    }
}

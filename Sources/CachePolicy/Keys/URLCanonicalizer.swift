internal import HTTPCore

/// Turns the `url` a caller asked for into the ``CanonicalURL`` Larder keys and fetches, or says
/// why it refuses it ([RFC 3986 §6](https://www.rfc-editor.org/rfc/rfc3986#section-6) normalisation).
///
/// What changes: scheme and host are lower-cased; the default port (80, 443) is removed; an empty
/// path becomes `/`; percent-encoding is normalised (hex upper-cased, escaped unreserved characters
/// decoded, §6.2.2.2) before dot segments are removed (§5.2.4); bytes that may not appear raw
/// (non-ASCII, `"<>\^`{|}`) are percent-encoded; the fragment is dropped. A `%` not followed by two
/// hex digits is left as it is, since re-escaping it would change what the origin receives.
/// The query keeps its order (origins may care); ``Options`` can drop it or some of its parameters.
///
/// What is refused (``URLRejection``): more than 8 KiB, control characters or whitespace, a scheme
/// other than http(s), user info, an empty or malformed host, a non-ASCII host (IDNA is out of scope),
/// an IPv6 zone or IPvFuture literal, a port outside 1…65535.
public struct URLCanonicalizer: Sendable {
    /// Options a filter sets (`ignoreQuery`, `dropParams`).
    public struct Options: Sendable, Equatable {
        /// Drop the whole query.
        public var ignoreQuery: Bool
        /// Drop query parameters whose (decoded) name matches one of these, e.g. `utm_*`, `fbclid`.
        public var dropParams: [GlobPattern]

        /// Creates options; the defaults change nothing.
        public init(ignoreQuery: Bool = false, dropParams: [GlobPattern] = []) {
            self.ignoreQuery = ignoreQuery
            self.dropParams = dropParams
        }
    }

    /// The longest URL accepted, in bytes.
    public static let maximumLength = 8192

    /// The options applied.
    public var options: Options

    /// Creates a canonicalizer.
    ///
    /// - Parameter options: What to do with the query.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Canonicalises an absolute http(s) URL.
    ///
    /// - Parameter url: The URL as the caller sent it (already percent-decoded from `?url=`).
    /// - Returns: The canonical URL, or why it was refused.
    public func canonicalize(_ url: String) -> Result<CanonicalURL, URLRejection> {
        var copy = url
        return copy.withUTF8 { canonicalize(bytes: $0[...], text: url) }
    }

    /// The one pass of checks and normalisation. Most URLs a service asks for are canonical already (a
    /// lower-case scheme and host, no default port, nothing to escape or decode, no dot segment): for
    /// those each part is made straight from the caller's bytes, and the caller's `text` is the
    /// canonical string, so nothing is copied, rebuilt or joined (about 4 000 instructions of every URL
    /// no memo holds; callgrind, a million-entry store's hits).
    private func canonicalize(bytes: URLBytes, text: String) -> Result<CanonicalURL, URLRejection> {
        guard bytes.count <= Self.maximumLength else { return .failure(.tooLong(bytes: bytes.count)) }
        if let offset = bytes.firstIndex(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return .failure(.forbiddenCharacter(offset: offset))
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            Self.isSchemeStart(bytes[0]), bytes[1..<colon].allSatisfy(Self.isSchemeByte)
        else { return .failure(.notAbsolute) }
        let scheme = String(asciiLowercasing: bytes[..<colon])
        guard bytes[(colon + 1)...].starts(with: "//".utf8) else { return .failure(.notAbsolute) }
        guard scheme == "http" || scheme == "https" else { return .failure(.unsupportedScheme(scheme)) }

        let authorityStart = colon + 3
        let authorityEnd =
            bytes[authorityStart...].firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        let hostAndPort: (host: String, port: Int?)
        switch Self.parseAuthority(authority, scheme: scheme) {
        case .success(let parsed): hostAndPort = parsed
        case .failure(let rejection): return .failure(rejection)
        }

        let fragmentStart = bytes[authorityEnd...].firstIndex(of: 0x23) ?? bytes.endIndex
        let queryStart = bytes[authorityEnd..<fragmentStart].firstIndex(of: 0x3F)
        // Whether the caller's text is the canonical string: nothing dropped, lower-cased or rewritten.
        var unchanged =
            fragmentStart == bytes.endIndex && !bytes[..<colon].contains(where: { $0 >= 0x41 && $0 <= 0x5A })
            && Self.spells(authority, host: hostAndPort.host, port: hostAndPort.port)
        let pathBytes = bytes[authorityEnd..<(queryStart ?? fragmentStart)]
        let path: String
        if !pathBytes.isEmpty, Self.isNormal(pathBytes), !Self.hasDotSegment(pathBytes) {
            path = String(decoding: pathBytes, as: UTF8.self)
        } else {
            unchanged = false
            let normalizedPath = Self.normalizingPercentEncoding(pathBytes)
            path =
                normalizedPath.isEmpty
                ? "/" : String(decoding: Self.removingDotSegments(normalizedPath), as: UTF8.self)
        }
        var query: String?
        if let queryStart {
            let queryBytes = bytes[(queryStart + 1)..<fragmentStart]
            if options.ignoreQuery {
                unchanged = false
            } else if options.dropParams.isEmpty && Self.isNormal(queryBytes) {
                query = String(decoding: queryBytes, as: UTF8.self)
            } else {
                unchanged = false
                let normalizedQuery = Self.normalizingPercentEncoding(queryBytes)
                query =
                    options.dropParams.isEmpty
                    ? String(decoding: normalizedQuery, as: UTF8.self) : dropParameters(from: normalizedQuery)
            }
        }
        // Escaping can triple what was given: the canonical form must itself be within the limit, or
        // canonicalizing it again (and the origin client) would refuse it.
        let portLength = hostAndPort.port.map { String($0).utf8.count + 1 } ?? 0
        let length =
            scheme.utf8.count + 3 + hostAndPort.host.utf8.count + portLength + path.utf8.count
            + (query.map { $0.utf8.count + 1 } ?? 0)
        guard length <= Self.maximumLength else { return .failure(.tooLong(bytes: length)) }
        return .success(
            CanonicalURL(
                scheme: scheme, host: hostAndPort.host, port: hostAndPort.port, path: path, query: query,
                text: unchanged ? text : nil))
    }

    /// The query without the parameters `dropParams` names (matched on the decoded name);
    /// `nil` when none is left.
    private func dropParameters(from query: [UInt8]) -> String? {
        var kept: [UInt8] = []
        kept.reserveCapacity(query.count)
        var anyKept = false
        query.withUnsafeBufferPointer { buffer in
            var start = 0
            while start <= buffer.count {
                let end = buffer[start...].firstIndex(of: UInt8(ascii: "&")) ?? buffer.count
                let parameter = buffer[start..<end]
                let nameEnd = parameter.firstIndex(of: UInt8(ascii: "=")) ?? end
                let name = String(decoding: buffer[start..<nameEnd], as: UTF8.self)
                let needsDecoding = buffer[start..<nameEnd].contains {
                    $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+")
                }
                let decodedName = needsDecoding ? name.formDecoded() : name
                if !options.dropParams.contains(where: { $0.matches(decodedName) }) {
                    if anyKept { kept.append(UInt8(ascii: "&")) }
                    kept.append(contentsOf: parameter)
                    anyKept = true
                }
                start = end + 1
            }
        }
        return anyKept ? String(decoding: kept, as: UTF8.self) : nil
    }

    private static func isSchemeStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isSchemeStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E
    }
}

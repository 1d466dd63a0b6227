public import HTTPCore

/// Larder's *target list* of targeted cache-control fields ([RFC 9213 §2.2](https://www.rfc-editor.org/rfc/rfc9213#section-2.2)):
/// response fields such as `CDN-Cache-Control` whose directives, when one of them is valid and non-empty,
/// replace `Cache-Control` and `Expires` for this cache's storage and freshness decisions.
///
/// Each field is a Structured Field dictionary (§2.1, RFC 8941); one that is empty, does not parse, or gives
/// a directive Larder implements a value of the wrong type (`max-age="60"`, `no-store=3`) is ignored as a
/// whole and the next field on the list is tried, then `Cache-Control`. Members of no known directive keep
/// what they can say as a `Cache-Control` extension would (unknown ones are ignored by the rules anyway);
/// parameters are ignored (§2.1). A boolean `?0` member is read as the directive's absence.
///
/// The fields are stored and forwarded to callers unchanged: RFC 9213 §3 expects a cache that uses
/// `CDN-Cache-Control` to "typically forward" it so that caches further down can use it too, and fields not
/// on the list "MUST be passed through" (§2.2).
///
/// The list is a value of the configuration (`--targeted-cache-control`, `FetchConfiguration`), handed to
/// every rule that reads a response's directives (``ResponseFacts``, ``Storability``, ``StoreAdmission``,
/// ``StoredEntry/facts(targets:)``): two caches in one process may obey different lists.
public struct TargetedCacheControl: Sendable, Equatable {
    /// The field names in order of precedence, as configured.
    public let fieldNames: [String]

    /// The target list RFC 9213 defines for a CDN cache: `CDN-Cache-Control` alone.
    public static let standard = TargetedCacheControl(fieldNames: ["CDN-Cache-Control"])

    /// Creates a target list.
    /// - Parameter fieldNames: The field names, most applicable first; empty turns targeted fields off.
    public init(fieldNames: [String]) {
        self.fieldNames = fieldNames
    }

    /// The directives that govern a response for this cache: those of the first field on the list that is
    /// present, valid and non-empty (§2.2), or `nil` when none is, so that `Cache-Control` and `Expires`
    /// apply.
    ///
    /// - Parameter headers: The response header section.
    /// - Returns: The field's name as listed and its directives, or `nil`.
    public func governingDirectives(in headers: HTTPHeaders) -> (fieldName: String, control: CacheControl)? {
        // Built for every stored entry read: a response without the fields (nearly all) costs a scan, no
        // allocation.
        for name in fieldNames where headers.contains(name) {
            let lines = headers.values(for: name)
            guard !lines.isEmpty, let control = Self.directives(fieldValues: lines) else { continue }
            return (name, control)
        }
        return nil
    }

    /// A targeted field's directives, or `nil` when the field must be ignored: empty, not a dictionary, or
    /// a known directive with a value of the wrong type.
    ///
    /// - Parameter fieldValues: The field's lines.
    /// - Returns: The directives as `Cache-Control` would hold them.
    public static func directives(fieldValues: [String]) -> CacheControl? {
        guard let dictionary = StructuredDictionary(fieldValues: fieldValues), !dictionary.members.isEmpty else {
            return nil
        }
        var directives: [CacheControl.Directive] = []
        for (key, value) in dictionary.members {
            switch directive(key, value) {
            case .some(.some(let directive)): directives.append(directive)
            case .some(.none): continue
            case .none: return nil
            }
        }
        return CacheControl(directives: directives)
    }

    /// Directives whose argument is `delta-seconds`: an sf-integer, never negative.
    private static let secondsDirectives: Set<String> = [
        "max-age", "s-maxage", "stale-while-revalidate", "stale-if-error",
    ]
    /// Directives without an argument: an sf-boolean.
    private static let flagDirectives: Set<String> = [
        "no-store", "no-transform", "must-revalidate", "proxy-revalidate", "public", "must-understand", "immutable",
    ]
    /// Directives with an optional list of field names: a boolean or an sf-string.
    private static let fieldListDirectives: Set<String> = ["no-cache", "private"]

    /// One member as a directive: `nil` when its value is of the wrong type (the field is then ignored),
    /// `.some(nil)` when it says nothing (`?0`, or a value no directive could hold).
    private static func directive(
        _ key: String, _ value: StructuredDictionary.Value
    ) -> CacheControl.Directive?? {
        if case .boolean(false) = value { return .some(nil) }
        if secondsDirectives.contains(key) {
            guard case .integer(let seconds) = value, seconds >= 0 else { return nil }
            return CacheControl.Directive(name: key, argument: String(seconds))
        }
        if flagDirectives.contains(key) {
            guard case .boolean(true) = value else { return nil }
            return CacheControl.Directive(name: key)
        }
        if fieldListDirectives.contains(key) {
            switch value {
            case .boolean: return CacheControl.Directive(name: key)
            case .string(let names): return CacheControl.Directive(name: key, argument: names)
            default: return nil
            }
        }
        switch value {
        case .boolean: return CacheControl.Directive(name: key)
        case .integer(let number): return CacheControl.Directive(name: key, argument: String(number))
        case .decimal(let text), .string(let text), .token(let text):
            return CacheControl.Directive(name: key, argument: text)
        case .byteSequence, .innerList: return .some(nil)
        }
    }
}

import HTTPCore
import HTTPServer

/// Why `FetchAccess` refused a request, and the 403 that says so.
public struct FetchRefusal: Sendable, Equatable {
    /// The kinds of refusal, the `reason` label of `larder_fetch_refusals_total`.
    public enum Reason: Int, Sendable, CaseIterable {
        /// Neither a token nor a signature.
        case credentialsMissing
        /// `sig` or `exp` given twice, `exp` not digits, or no single `url` to check against.
        case signatureMalformed
        /// No configured key produces the signature.
        case signatureMismatch
        /// A genuine signature whose `exp` has passed.
        case signatureExpired
        /// A genuine signature on a method other than GET or HEAD.
        case signatureMethod
        /// A `Larder-Token` that is no configured caller token.
        case tokenMismatch

        /// The label value.
        public var label: String {
            switch self {
            case .credentialsMissing: "missing"
            case .signatureMalformed: "signature_malformed"
            case .signatureMismatch: "signature_mismatch"
            case .signatureExpired: "signature_expired"
            case .signatureMethod: "signature_method"
            case .tokenMismatch: "token_mismatch"
            }
        }
    }

    /// The kind.
    public let reason: Reason
    /// What a caller reads; never a key, a token or the expected signature.
    public let detail: String

    /// The problem type: `token-invalid` for a token that matched nothing, or when tokens alone are
    /// configured; `signature-invalid` otherwise.
    /// - Parameter signing: whether URL signing is configured.
    /// - Returns: the type.
    public func problemType(signing: Bool) -> ProblemType {
        reason == .tokenMismatch || !signing ? .tokenInvalid : .signatureInvalid
    }
}

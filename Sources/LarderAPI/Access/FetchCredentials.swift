/// The URL signing keys and caller tokens `FetchAccess` holds at one moment: replaced whole by a reload,
/// so a request is decided against one set (immutable, so a read is one retain).
final class FetchCredentials: Sendable {
    /// Verifies signatures; empty when URLs need none.
    let signer: URLSigner
    /// The caller tokens, none with an empty secret.
    let tokens: [FetchAccess.Token]

    /// Creates a set.
    /// - Parameters:
    ///   - signingKeys: the URL signing keys, the signing one first.
    ///   - tokens: the caller tokens; those with an empty secret are dropped.
    init(signingKeys: [[UInt8]], tokens: [FetchAccess.Token]) {
        signer = URLSigner(keys: signingKeys)
        self.tokens = tokens.filter { !$0.secret.isEmpty }
    }

    /// Whether anything is configured; when not, every request is admitted.
    var isEnabled: Bool { !signer.isEmpty || !tokens.isEmpty }
}

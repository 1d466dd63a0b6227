/// What the parser has learned so far about the request it is reading; reset after each request.
struct MessageInProgress: Sendable {
    /// What the Transfer-Encoding field lines said, across all of them (RFC 9112 §6.1).
    struct TransferEncodingFacts: Sendable {
        var present = false
        var invalid = false
        var chunkedCount = 0
        var otherCount = 0
        var lastIsChunked = false
    }

    var emptyLinesSkipped = 0
    var method = HTTPMethod.get
    var target = ""
    var version = HTTPVersion.http1_1
    var path = ""
    var query: String?
    /// The target's authority when it was in absolute-form; it replaces Host (RFC 9112 §3.2.2).
    var absoluteAuthority: String?
    var headerBytes = 0
    var hostCount = 0
    var hostInvalid = false
    var contentLengthPresent = false
    var contentLength: Int?
    var contentLengthError: String?
    var transferEncoding = TransferEncodingFacts()
    var expectsContinue = false
    var unknownExpectation = false
    /// Whether `.expectsContinue` is still to be reported for this request.
    var continuePending = false
    var body: [UInt8] = []
    var chunkExtensionBytes = 0
    var trailerBytes = 0
}

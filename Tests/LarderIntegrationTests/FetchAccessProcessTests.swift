import Foundation
import HTTPCore
import TestSupport
import Testing

/// Signed URLs and caller tokens where only the real binary can show them: the start-up line that says how
/// `/fetch` is opened (and names no secret), and a bad key file stopping the start. The requests themselves
/// run in process, through `serve`'s wiring (`FetchAccessWiringTests`).
@Suite(.serialized) struct FetchAccessProcessTests {
    static let signingKey = "process-signing-key-0123"
    static let callerSecret = "process-caller-s3cret"

    /// On the binary: the line is `serve`'s own, logged after "listening on" from the policies the wiring read.
    @Test func theStartLineSaysHowFetchIsOpenedAndNamesNoSecret() async throws {
        let keys = try TemporaryFile("# current\n\(Self.signingKey)\n")
        let tokens = try TemporaryFile("billing=\(Self.callerSecret)\n")
        let larder = try await LarderProcess.start(arguments: [
            "--url-signing-key-file", keys.path, "--fetch-token-file", tokens.path, "--log-format", "json",
        ])
        defer { larder.stop() }
        let said = await waitUntil(timeout: .seconds(10)) {
            larder.logText.contains("/fetch requires a signed URL (1 key) or a Larder-Token (billing)")
        }
        #expect(said, "\(larder.logText)")
        let log = larder.logText
        #expect(!log.contains(Self.signingKey))
        #expect(!log.contains(Self.callerSecret))
    }

    /// On the binary: refusing to start is the process's exit status and its last words.
    @Test func aBadKeyFileStopsTheStartNamingTheLineButNotTheKey() async throws {
        let keys = try TemporaryFile("\(Self.signingKey)\nshort-s3cret\n")
        let result = try await LarderProcess.run(["serve", "--port", "0", "--url-signing-key-file", keys.path])
        #expect(result.status != 0)
        #expect(result.output.contains("\(keys.path):2 holds a key shorter than 16 bytes"), "\(result.output)")
        #expect(!result.output.contains("s3cret"))
        #expect(!result.output.contains("listening on"))
    }
}

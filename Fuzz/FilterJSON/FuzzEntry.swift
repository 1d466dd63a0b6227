// libFuzzer entry for the filter JSON decoder (Fuzz/run.sh FilterJSON): CachePolicy's own JSON parser
// and the strict FilterDefinition decoding on top of it, which read what operators PUT and POST to
// /filters and what the chain table holds. Crashes, sanitizer reports and broken invariants are
// findings; a decoding error is an ordinary outcome.
//
// Input: a JSON document, as the body of a request.
@testable import CachePolicy

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilterJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let json = Array(UnsafeBufferPointer(start: data, count: size))

    // parse → write → parse is stable: the written text means the same value, and writes the same text.
    if let value = try? FilterJSON.parse(json) {
        let text = value.text
        guard let again = try? FilterJSON.parse(Array(text.utf8)) else {
            fatalError("written JSON does not parse: \(text.debugDescription)")
        }
        require(again == value, "\(text.debugDescription) parses to another value")
        require(again.text == text, "writing is not stable")
    }

    // decode → encode → decode is stable, for one filter and for a chain.
    if let definition = try? FilterDefinition.decode(json: json, defaultName: "fallback") {
        let text = definition.canonicalJSON
        do {
            let again = try FilterDefinition.decode(json: Array(text.utf8))
            require(again == definition, "\(text.debugDescription) decodes to another filter")
            require(again.canonicalJSON == text, "canonical JSON is not stable")
        } catch {
            fatalError("canonical JSON \(text.debugDescription) is refused: \(error)")
        }
    }
    if let chain = try? FilterDefinition.decodeList(json: json) {
        let text = FilterDefinition.chainJSON(chain, version: 7)
        do {
            let again = try FilterDefinition.decodeList(json: Array(text.utf8))
            require(again == chain, "\(text.debugDescription) decodes to another chain")
        } catch {
            fatalError("chain JSON \(text.debugDescription) is refused: \(error)")
        }
    }
    return 0
}

/// `precondition` that keeps its message in optimized builds, so a finding says what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant broken") {
    if !condition { fatalError(message()) }
}

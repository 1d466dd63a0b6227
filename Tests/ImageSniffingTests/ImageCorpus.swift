import Foundation
import ImageSniffing
import TestSupport
import Testing

/// One file of the Pillow-made corpus, with what `manifest.tsv` says about it.
struct CorpusImage: CustomTestStringConvertible, Sendable {
    var name: String
    var format: ImageFormat
    var width: Int
    var height: Int
    var bytes: [UInt8]

    var testDescription: String { name }
}

/// The corpus `scripts/make-image-corpus.py` writes, made once per test run into a temporary
/// directory. `nil` (with `problem` saying why) when python3 or Pillow is missing.
enum ImageCorpus {
    private static let made = make()
    /// The images, or `nil` when the corpus could not be made.
    static var images: [CorpusImage]? { made.images }
    /// Why the corpus could not be made.
    static var problem: String { made.problem }
    static var isAvailable: Bool { images != nil }

    private static func make() -> (images: [CorpusImage]?, problem: String) {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/make-image-corpus.py")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("larder-image-corpus-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let process: ChildProcess
        do {
            process = try ChildProcess("/usr/bin/env", ["python3", script.path, directory.path])
        } catch {
            return (nil, "python3 could not be started: \(error)")
        }
        // Pillow writes the whole corpus in about a second; a minute means something is stuck.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            return (nil, "make-image-corpus.py did not finish within 60 s")
        }
        guard process.terminationStatus == 0 else {
            return (nil, "make-image-corpus.py exited with \(process.terminationStatus) (pip install Pillow)")
        }
        guard let manifest = try? String(contentsOf: directory.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        else {
            return (nil, "make-image-corpus.py wrote no manifest")
        }
        let images: [CorpusImage] = manifest.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 4, let format = ImageFormat(rawValue: fields[1]), let width = Int(fields[2]),
                let height = Int(fields[3]),
                let data = FileManager.default.contents(atPath: directory.appendingPathComponent(fields[0]).path)
            else { return nil }
            return CorpusImage(name: fields[0], format: format, width: width, height: height, bytes: [UInt8](data))
        }
        return (images, "")
    }
}

import Testing
import Zlib

@Suite struct ZlibErrorTests {
    @Test(arguments: [
        (
            ZlibError(operation: .inflate, kind: .library, code: .dataError, message: "incorrect data check"),
            "inflate: Z_DATA_ERROR (incorrect data check)"
        ),
        (
            ZlibError(operation: .inflate, kind: .truncated, code: .bufferError),
            "inflate: the input ends before the stream does (Z_BUF_ERROR)"
        ),
        (
            ZlibError(operation: .inflate, kind: .trailingBytes(count: 3), code: .streamEnd),
            "inflate: 3 bytes follow the end of the stream"
        ),
        (
            ZlibError(operation: .inflate, kind: .outputLimitExceeded(limit: 65_536), code: .ok),
            "inflate: the output exceeds the limit of 65536 bytes"
        ),
        (
            ZlibError(operation: .deflate, kind: .streamFinished, code: .streamError),
            "deflate: the stream was already finished"
        ),
        (
            ZlibError(operation: .deflateInit, kind: .library, code: .init(rawValue: -42)),
            "deflateInit2: zlib code -42"
        ),
    ])
    func descriptionSaysTheCallAndWhatWentWrong(error: ZlibError, text: String) {
        #expect(error.description == text)
    }

    @Test func codesHaveZlibsValuesAndNames() {
        let codes: [(ZlibError.Code, Int32, String)] = [
            (.ok, 0, "Z_OK"), (.streamEnd, 1, "Z_STREAM_END"), (.needDictionary, 2, "Z_NEED_DICT"),
            (.errno, -1, "Z_ERRNO"), (.streamError, -2, "Z_STREAM_ERROR"), (.dataError, -3, "Z_DATA_ERROR"),
            (.memoryError, -4, "Z_MEM_ERROR"), (.bufferError, -5, "Z_BUF_ERROR"),
            (.versionError, -6, "Z_VERSION_ERROR"),
        ]
        for (code, value, name) in codes {
            #expect(code.rawValue == value && code.description == name)
        }
    }
}

import CCurl

/// Owns one libcurl easy handle (https://curl.se/libcurl/c/libcurl-easy.html); cleaned up in `deinit`.
///
/// Used only on the driver thread of `CurlDriver`. Every option set through it is checked: the first
/// one libcurl refuses is kept in `firstFailure` until the next `reset()`, so a transfer is set up as
/// a list of statements and checked once (a `[CURLcode]` of every result cost an allocation and a copy
/// per group of options on every miss).
final class CurlEasy {
    /// The raw handle; valid for the life of this object.
    let handle: UnsafeMutableRawPointer
    /// The first option libcurl refused since the handle was made or reset, `nil` when none was.
    private(set) var firstFailure: CURLcode?

    /// Creates a handle, or returns `nil` when libcurl cannot allocate one.
    init?() {
        _ = CurlGlobal.initialized
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Sets every option back to its default for the next transfer, keeping what libcurl keeps across
    /// transfers (its allocations, the TLS session cache; connections and DNS entries live in the multi
    /// handle): a fetch set up on a reset handle allocates far less than one on a new handle
    /// (https://curl.se/libcurl/c/curl_easy_reset.html).
    func reset() {
        curl_easy_reset(handle)
        firstFailure = nil
    }

    /// Keeps `code` when it is the first failure since the last reset.
    func check(_ code: CURLcode) {
        if code != CURLE_OK, firstFailure == nil { firstFailure = code }
    }

    /// Sets a `long` option.
    func set(_ option: CURLoption, _ value: Int) { check(ccurl_easy_setopt_long(handle, option, value)) }

    /// Sets a string option; libcurl copies the string. Through `withCString`: Swift's implicit conversion
    /// of a `String` argument to a C string copies it into a new array first.
    func set(_ option: CURLoption, _ value: String) {
        check(value.withCString { ccurl_easy_setopt_string(handle, option, $0) })
    }

    /// Sets a string option to a literal, which is stored NUL-terminated: no copy before libcurl's own.
    func set(_ option: CURLoption, literal value: StaticString) {
        precondition(value.hasPointerRepresentation)
        check(
            ccurl_easy_setopt_string(
                handle, option, UnsafeRawPointer(value.utf8Start).assumingMemoryBound(to: CChar.self)))
    }

    /// Sets a pointer option.
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) {
        check(ccurl_easy_setopt_pointer(handle, option, value))
    }

    /// Hands the response's body to `write` and its header lines to `header`, each called with `data`
    /// (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION and their DATA options).
    /// - Parameters:
    ///   - write: the body callback.
    ///   - header: the header-line callback.
    ///   - data: what both are called with (the receiver, unretained: the caller keeps it alive).
    func setDataCallbacks(write: ccurl_data_callback, header: ccurl_data_callback, data: UnsafeMutableRawPointer) {
        check(ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, write))
        set(CURLOPT_WRITEDATA, pointer: data)
        check(ccurl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, header))
        set(CURLOPT_HEADERDATA, pointer: data)
    }

    /// The options every handle of Larder's sets, origin fetch or replica call: no signals, http and https
    /// only, redirects relayed rather than followed, no proxy (an empty proxy also disables `http_proxy`
    /// and friends from the environment), and certificates and host names verified.
    func applyCommonPolicy() {
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_PROTOCOLS_STR, literal: "http,https")
        set(CURLOPT_FOLLOWLOCATION, 0)
        set(CURLOPT_PROXY, literal: "")
        set(CURLOPT_NOPROXY, literal: "*")
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
    }

    /// Why the handle cannot be set up, from `firstFailure`; `nil` when every option was taken.
    var setupFailure: String? {
        firstFailure.map { "curl_easy_setopt: \(String(cString: curl_easy_strerror($0)))" }
    }

    /// What went wrong with a transfer: libcurl's error buffer when it says something, else the code's
    /// description.
    static func detail(_ code: CURLcode, errorBuffer: UnsafePointer<CChar>) -> String {
        let message = String(cString: errorBuffer)
        return message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
    }

    /// Reads a `long` info field, 0 when unavailable.
    func info(long field: CURLINFO) -> Int {
        var value = 0
        return ccurl_easy_getinfo_long(handle, field, &value) == CURLE_OK ? value : 0
    }

    /// Reads a `curl_off_t` info field, 0 when unavailable.
    func info(offset field: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return ccurl_easy_getinfo_off(handle, field, &value) == CURLE_OK ? Int64(value) : 0
    }

    /// Reads a string info field, "" when unavailable.
    func info(string field: CURLINFO) -> String {
        var value: UnsafeMutableRawPointer?
        guard ccurl_easy_getinfo_pointer(handle, field, &value) == CURLE_OK, let value else { return "" }
        return String(cString: value.assumingMemoryBound(to: CChar.self))
    }
}

/// libcurl's process-wide initialization, run once before the first handle
/// (https://curl.se/libcurl/c/curl_global_init.html).
enum CurlGlobal {
    /// Swift runs a global's initializer once, thread-safely.
    static let initialized: CURLcode = ccurl_global_init_default()
}

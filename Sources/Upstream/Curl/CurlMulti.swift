import CCurl

/// Owns a libcurl multi handle (https://curl.se/libcurl/c/libcurl-multi.html); cleaned up in `deinit`.
///
/// Every call but `wakeup()` happens on the driver thread; `wakeup()` is thread-safe in libcurl, and the
/// handle outlives every caller of it (the driver owns it and lives as long as any fetch handle).
final class CurlMulti {
    /// The raw handle; valid for the life of this object.
    let handle: UnsafeMutableRawPointer

    /// Creates a multi handle, or returns `nil` when libcurl cannot allocate one.
    init?() {
        _ = CurlGlobal.initialized
        guard let handle = curl_multi_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_multi_cleanup(handle) }

    /// Sets a `long` option.
    @discardableResult
    func set(_ option: CURLMoption, _ value: Int) -> CURLMcode { ccurl_multi_setopt_long(handle, option, value) }

    /// Adds a transfer.
    func add(_ easy: CurlEasy) -> CURLMcode { curl_multi_add_handle(handle, easy.handle) }

    /// Removes a transfer (also mid-flight: that aborts it).
    @discardableResult
    func remove(_ easy: CurlEasy) -> CURLMcode { curl_multi_remove_handle(handle, easy.handle) }

    /// Performs what can be done without blocking (https://curl.se/libcurl/c/curl_multi_perform.html).
    func perform() -> CURLMcode {
        var running: Int32 = 0
        return curl_multi_perform(handle, &running)
    }

    /// Waits for activity, curl's own timeout or a wakeup, at most `milliseconds`
    /// (https://curl.se/libcurl/c/curl_multi_poll.html).
    func poll(milliseconds: Int32) -> CURLMcode { curl_multi_poll(handle, nil, 0, milliseconds, nil) }

    /// Interrupts a `poll` from another thread (https://curl.se/libcurl/c/curl_multi_wakeup.html).
    func wakeup() { _ = curl_multi_wakeup(handle) }

    /// The next finished transfer and its result, if any.
    func nextDone() -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                return (easy, message.pointee.data.result)
            }
        }
        return nil
    }
}

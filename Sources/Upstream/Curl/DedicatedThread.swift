import CLinux
import Glibc

/// Starts a detached POSIX thread that runs one closure: what `Foundation.Thread` would do, without
/// linking Foundation (and its ICU data) into the binary for one thread.
enum DedicatedThread {
    /// Runs `body` on a new thread named `name` (at most 15 bytes show, the kernel's limit).
    /// - Precondition: the thread can be created (a failure means the process is out of resources).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(run: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
                body.run()
                return nil
            }, box)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            preconditionFailure("pthread_create failed (\(result))")
        }
        _ = pthread_setname_np(thread, String(name.utf8.prefix(15))!)
        pthread_detach(thread)
    }

    private final class Body {
        let run: @Sendable () -> Void
        init(run: @escaping @Sendable () -> Void) { self.run = run }
    }
}

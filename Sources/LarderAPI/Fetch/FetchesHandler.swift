import CacheCore
import FoundationEssentials
import HTTPCore
import HTTPServer

/// `GET /fetches`: the origin fetches under way as JSON, oldest first — URL, key, status once known,
/// bytes received and expected, callers that joined, start time and age in seconds.
///
/// ```json
/// {"fetches": [{"id": 3, "url": "https://a.example/x", "key": "…", "status": 200, "bytesReceived": 4096,
///   "bytesExpected": 65536, "waiters": 12, "started": "2026-11-21T21:40:00Z", "ageSeconds": 0.25}]}
/// ```
struct FetchesHandler: HTTPResponder {
    let service: FetchService

    func respond(to request: HTTPRequest, context: HTTPRequestContext, writer: HTTPResponseWriter) {
        let now = service.clock()
        var items: [String] = []
        for fetch in service.registry.all {
            let snapshot = fetch.snapshot
            var object = JSONObjectWriter()
            object.add("id", fetch.id)
            object.add("url", fetch.order.url)
            object.add("key", fetch.order.key.hex)
            object.add("status", json: snapshot.status.map(String.init) ?? "null")
            object.add("bytesReceived", snapshot.bytesReceived)
            object.add("bytesExpected", json: snapshot.bytesExpected.map(String.init) ?? "null")
            object.add("waiters", snapshot.waiters)
            object.add("started", fetch.requestTime)
            object.add("ageSeconds", max(0, now.timeIntervalSince(fetch.requestTime)))
            items.append(object.text)
        }
        var page = JSONObjectWriter()
        page.add("fetches", json: "[" + items.joined(separator: ",") + "]")
        writer.send(CacheAPI.json(page.text))
    }
}

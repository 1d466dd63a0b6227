import CacheCore
import CachePolicy
import Dispatch
import HTTPCore
import Testing

struct FilterChainRegistryTests {
    static let png = try! URLCanonicalizer().canonicalize("https://a.example/x.png").get()

    @Test func aNewStoreGetsTheDefaultChainSavedAtVersionOne() throws {
        let store = InMemoryCacheStore()
        let registry = try FilterChainRegistry(store: store)
        #expect(registry.chain.version == 1)
        #expect(registry.chain.filters == FilterChain.defaultFilters)
        #expect(try store.loadFilterChain().filters.map(\.name) == ["images", "images-read-only"])
        #expect(registry.decide(url: Self.png, headers: HTTPHeaders()).filterName == "images")
    }

    @Test func anEmptiedChainStaysEmptyWhenLoadedAgain() throws {
        let store = InMemoryCacheStore()
        try FilterChainRegistry(store: store).removeAll()
        let reloaded = try FilterChainRegistry(store: store, defaultPolicy: .bypass)
        #expect(reloaded.chain.filters.isEmpty)
        #expect(reloaded.chain.version == 2)
        #expect(reloaded.decide(url: Self.png, headers: HTTPHeaders()) == .defaultBypass)
    }

    @Test func changesArePersistedVersionedAndVisibleAtOnce() throws {
        let store = InMemoryCacheStore()
        let registry = try FilterChainRegistry(store: store)
        let deny = FilterDefinition(name: "deny-a", match: .init(hosts: ["a.example"]), action: .deny)
        try registry.add(deny, before: "images")
        #expect(registry.chain.version == 2)
        #expect(registry.decide(url: Self.png, headers: HTTPHeaders()).action == .deny)
        let (_, created) = try registry.put(FilterDefinition(name: "deny-a", action: .bypass))
        #expect(!created)
        #expect(registry.chain.filters.map(\.name) == ["deny-a", "images", "images-read-only"])
        #expect(try registry.put(FilterDefinition(name: "z")).created)
        try registry.remove(named: "images")
        #expect(registry.chain.filters.map(\.name) == ["deny-a", "images-read-only", "z"])
        #expect(registry.chain.version == 5)
        let reloaded = try FilterChainRegistry(store: store)
        #expect(reloaded.chain.filters == registry.chain.filters)
        #expect(reloaded.chain.version == 5)
    }

    @Test func refusedChangesLeaveTheChainAndVersionAlone() throws {
        let store = InMemoryCacheStore()
        let registry = try FilterChainRegistry(store: store)
        #expect(throws: FilterChainError.duplicateName("images")) { try registry.add(.images) }
        #expect(throws: FilterChainError.beforeNotFound("nope")) {
            try registry.add(FilterDefinition(name: "n"), before: "nope")
        }
        #expect(throws: FilterChainError.notFound("nope")) { try registry.remove(named: "nope") }
        #expect(throws: FilterChainError.preconditionFailed(currentVersion: 1)) {
            try registry.removeAll(precondition: { $0 == 0 })
        }
        #expect(throws: FilterChainError.duplicateName("a")) {
            try registry.replaceAll(with: [FilterDefinition(name: "a"), FilterDefinition(name: "a")])
        }
        #expect(registry.chain.version == 1)
        #expect(try store.loadFilterChain().version == 1)
        try registry.removeAll(precondition: { $0 == 1 })
        #expect(registry.chain.version == 2)
    }

    /// RFC 9110 §13.2.2: a request that fails without its preconditions fails the same way with them.
    @Test func aChangeThatFailsAnywayIgnoresAStalePrecondition() throws {
        let registry = try FilterChainRegistry(store: InMemoryCacheStore())
        let stale: (Int) -> Bool = { $0 == 0 }
        #expect(throws: FilterChainError.notFound("nope")) { try registry.remove(named: "nope", precondition: stale) }
        #expect(throws: FilterChainError.duplicateName("images")) { try registry.add(.images, precondition: stale) }
        #expect(throws: FilterChainError.beforeNotFound("nope")) {
            try registry.add(FilterDefinition(name: "n"), before: "nope", precondition: stale)
        }
        // A change that would succeed is still refused at a stale version.
        #expect(throws: FilterChainError.preconditionFailed(currentVersion: 1)) {
            try registry.remove(named: "images", precondition: stale)
        }
        #expect(registry.chain.version == 1)
    }

    @Test func aConcurrentWriterToTheStoreIsAPreconditionFailureNotAnOverwrite() throws {
        let store = InMemoryCacheStore()
        let registry = try FilterChainRegistry(store: store)
        _ = try store.saveFilterChain([], expectedVersion: 1)
        #expect(throws: FilterChainError.preconditionFailed(currentVersion: 2)) {
            try registry.add(FilterDefinition(name: "n"))
        }
        #expect(registry.chain.filters == FilterChain.defaultFilters)
    }

    @Test func concurrentChangesAreSerialisedAndNoneIsLost() throws {
        let registry = try FilterChainRegistry(store: InMemoryCacheStore())
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            if index % 4 == 0 {
                // Readers decide while writers change the chain.
                for _ in 0..<200 { _ = registry.decide(url: Self.png, headers: HTTPHeaders()) }
            } else {
                _ = try? registry.add(FilterDefinition(name: "f\(index)", match: .init(hosts: ["h\(index).example"])))
            }
        }
        #expect(registry.chain.filters.count == FilterChain.defaultFilters.count + 30)
        #expect(registry.chain.version == 1 + 30)
        #expect(Set(registry.chain.filters.map(\.name)).count == FilterChain.defaultFilters.count + 30)
    }

    @Test func aStoredFilterThatNoLongerDecodesStopsTheLoad() throws {
        let store = InMemoryCacheStore()
        _ = try store.saveFilterChain(
            [FilterRecord(name: "bad", json: #"{"name":"bad","ttl":"x"}"#)], expectedVersion: 0)
        #expect(throws: FilterChainError.self) { try FilterChainRegistry(store: store) }
    }
}

import Glibc
import HTTPServer
import Testing

/// In-memory files hold descriptors: their number is bounded so that they cannot starve `accept`.
@Suite struct MemoryFileBudgetTests {
    @Test func filesBeyondTheBudgetAreRefusedUntilOneCloses() throws {
        let budget = MemoryFileBudget(limit: 3)
        var files = try (0..<3).map { _ in try #require(MemoryFile(bytes: [1, 2, 3], budget: budget)) }
        #expect(budget.openCount == 3)
        #expect(MemoryFile(bytes: [4], budget: budget) == nil)
        #expect(budget.openCount == 3)
        files.removeLast()
        #expect(budget.openCount == 2)
        let again = MemoryFile(bytes: [5], budget: budget)
        #expect(again != nil)
        #expect(budget.openCount == 3)
        #expect(files.count == 2)
    }

    @Test func theSharedBudgetIsAQuarterOfTheDescriptorLimit() {
        var limits = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0)
        #expect(MemoryFileBudget.shared.limit == max(16, Int(limits.rlim_cur / 4)))
    }
}

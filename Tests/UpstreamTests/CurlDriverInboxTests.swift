import Testing

@testable import Upstream

/// When the curl driver is woken for a command (`CurlDriverInbox`): only when it sleeps, once a sleep,
/// never for a command it will take before it polls, and never after shutdown.
@Suite struct CurlDriverInboxTests {
    /// Posts each command in turn; returns what each post said (`#expect` cannot take a mutating call).
    static func post(_ commands: [Int], to inbox: inout CurlDriverInbox<Int>) -> [CurlDriverInbox<Int>.Posted] {
        commands.map { inbox.post($0) }
    }

    @Test func aRunningDriverIsNotWokenAndTakesTheCommandsBeforeItPolls() {
        var inbox = CurlDriverInbox<Int>()
        #expect(Self.post([1, 2], to: &inbox) == [.queued(wake: false), .queued(wake: false)])
        // Commands are waiting: the driver must not sleep.
        let sleeps = inbox.sleepIfIdle()
        #expect(!sleeps)
        let taken = inbox.take()
        #expect(taken.commands == [1, 2])
        #expect(!taken.stopping)
        let again = inbox.take()
        #expect(again.commands.isEmpty)
    }

    @Test func aSleepingDriverIsWokenOnceWhateverNumberOfCommandsFollow() {
        var inbox = CurlDriverInbox<Int>()
        let sleeps = inbox.sleepIfIdle()
        #expect(sleeps)
        #expect(
            Self.post([1, 2, 3], to: &inbox) == [.queued(wake: true), .queued(wake: false), .queued(wake: false)])
        inbox.awoke()
        let taken = inbox.take()
        #expect(taken.commands == [1, 2, 3])
        // Asleep again: the next command wakes it again.
        let sleepsAgain = inbox.sleepIfIdle()
        #expect(sleepsAgain)
        #expect(Self.post([4], to: &inbox) == [.queued(wake: true)])
    }

    @Test func aWakeupSentBeforeThePollReturnedIsNotSentAgainAfterIt() {
        var inbox = CurlDriverInbox<Int>()
        let sleeps = inbox.sleepIfIdle()
        #expect(sleeps)
        #expect(Self.post([1], to: &inbox) == [.queued(wake: true)])
        inbox.awoke()
        // Between the poll's return and the next take the driver is running: no second wakeup.
        #expect(Self.post([2], to: &inbox) == [.queued(wake: false)])
        let sleepsWithCommands = inbox.sleepIfIdle()
        #expect(!sleepsWithCommands)
        let taken = inbox.take()
        #expect(taken.commands == [1, 2])
    }

    @Test func afterShutdownCommandsAreRefusedAndTheDriverStopsInsteadOfSleeping() {
        var inbox = CurlDriverInbox<Int>()
        let sleeps = inbox.sleepIfIdle()
        #expect(sleeps)
        #expect(Self.post([1], to: &inbox) == [.queued(wake: true)])
        let first = inbox.shutDown()
        let second = inbox.shutDown()
        #expect(first)
        #expect(!second)
        #expect(Self.post([2], to: &inbox) == [.refused])
        let sleepsWhileStopping = inbox.sleepIfIdle()
        #expect(!sleepsWhileStopping)
        let taken = inbox.take()
        #expect(taken.commands == [1])
        #expect(taken.stopping)
    }
}

import Foundation
import ReceiptdConsole
import Testing

/// The failed sign-in limit: five failures per name within 60 s, then 429s until the minute has passed.
@Suite struct SignInThrottleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A sign-in for `name` at `start + seconds` that fails (or succeeds); whether it was admitted.
    private func attempt(
        _ throttle: inout SignInThrottle,
        _ name: String,
        at seconds: Double,
        succeeds: Bool = false
    ) -> Bool {
        let now = start.addingTimeInterval(seconds)
        guard throttle.admit(name, at: now) else { return false }
        throttle.finish(name, succeeded: succeeds, at: now)
        return true
    }

    @Test func theSixthSignInWithinTheWindowIsRefusedUntilTheMinuteHasPassed() {
        var throttle = SignInThrottle(failuresAllowed: 5, window: .seconds(60))
        for second in 0..<5 { #expect(attempt(&throttle, "alice", at: Double(second))) }
        #expect(throttle.failures(for: "alice", at: start.addingTimeInterval(5)) == 5)
        #expect(!attempt(&throttle, "alice", at: 5, succeeds: true))
        #expect(!attempt(&throttle, "alice", at: 59.9, succeeds: true))
        // Others are not held back by alice's failures.
        #expect(attempt(&throttle, "bob", at: 6))
        // The first failure is a minute old: one more try.
        #expect(attempt(&throttle, "alice", at: 60))
        #expect(!attempt(&throttle, "alice", at: 60.5))
        // A minute after all of them, every try is back.
        #expect(attempt(&throttle, "alice", at: 121, succeeds: true))
        #expect(throttle.failures(for: "alice", at: start.addingTimeInterval(121)) == 0)
    }

    @Test func refusedSignInsDoNotExtendTheWait() {
        var throttle = SignInThrottle(failuresAllowed: 5, window: .seconds(60))
        for _ in 0..<5 { _ = attempt(&throttle, "alice", at: 0) }
        for second in stride(from: 1.0, to: 60, by: 1) { #expect(!attempt(&throttle, "alice", at: second)) }
        #expect(attempt(&throttle, "alice", at: 60, succeeds: true))
    }

    @Test func aSuccessClearsTheNamesFailures() {
        var throttle = SignInThrottle(failuresAllowed: 5, window: .seconds(60))
        for _ in 0..<4 { _ = attempt(&throttle, "alice", at: 0) }
        #expect(attempt(&throttle, "alice", at: 1, succeeds: true))
        for _ in 0..<5 { #expect(attempt(&throttle, "alice", at: 2)) }
        #expect(!attempt(&throttle, "alice", at: 3))
    }

    @Test func signInsInFlightCountSoThatGuessesSentAtOnceCannotPassTheLimit() {
        var throttle = SignInThrottle(failuresAllowed: 5, window: .seconds(60))
        let admitted = (0..<20).filter { _ in throttle.admit("alice", at: start) }
        #expect(admitted.count == 5)
        for _ in admitted { throttle.finish("alice", succeeded: false, at: start) }
        let later = throttle.admit("alice", at: start.addingTimeInterval(1))
        #expect(!later)
    }

    @Test func memoryIsBoundedAndOldNamesAreForgotten() {
        var throttle = SignInThrottle(failuresAllowed: 5, window: .seconds(60), maximumNames: 100)
        for index in 0..<100 { _ = attempt(&throttle, "old-\(index)", at: 0) }
        #expect(throttle.rememberedNames == 100)
        // Expired names go first.
        _ = attempt(&throttle, "new", at: 61)
        #expect(throttle.rememberedNames == 1)
        // Beyond the bound with every failure live, the stalest are dropped.
        for index in 0..<250 { _ = attempt(&throttle, "flood-\(index)", at: 62 + Double(index) / 1000) }
        #expect(throttle.rememberedNames <= 100)
        #expect(throttle.failures(for: "flood-249", at: start.addingTimeInterval(63)) == 1)
        // A success forgets the name at once.
        _ = attempt(&throttle, "flood-249", at: 63, succeeds: true)
        #expect(throttle.failures(for: "flood-249", at: start.addingTimeInterval(63)) == 0)
    }

    @Test func everySpellingOfANameIsCountedAsOne() {
        var throttle = SignInThrottle(failuresAllowed: 5, window: .seconds(60))
        for second in 0..<5 { #expect(attempt(&throttle, "Kate", at: Double(second))) }
        // KELVIN SIGN is "K" in NFC, and "e\u{301}" is "é": other bytes, the same name.
        #expect(!attempt(&throttle, "\u{212A}ate", at: 5, succeeds: true))
        #expect(throttle.failures(for: "\u{212A}ate", at: start.addingTimeInterval(5)) == 5)
        for second in 0..<5 { #expect(attempt(&throttle, "Ren\u{E9}e", at: Double(second))) }
        #expect(!attempt(&throttle, "Rene\u{301}e", at: 5))
    }
}

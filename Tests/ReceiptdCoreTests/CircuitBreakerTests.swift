import Testing

@testable import ReceiptdCore

@Suite struct CircuitBreakerTests {
    let start = ContinuousClock.now
    let configuration = {
        var configuration = CircuitBreaker.Configuration()
        configuration.window = 10
        configuration.minimumCalls = 4
        configuration.maximumCooldown = .seconds(8)
        return configuration
    }()

    @Test func staysClosedWhileMostCallsSucceed() {
        var breaker = CircuitBreaker(configuration: configuration)
        for index in 0..<50 { breaker.record(success: index % 4 != 0, now: start, unitRandom: 0.5) }
        #expect(breaker.state == .closed)
        let permitted = breaker.permits(now: start)
        #expect(permitted == .max)
    }

    @Test func opensWhenMostRecentCallsFailThenProbes() {
        var breaker = CircuitBreaker(configuration: configuration)
        for _ in 0..<3 { breaker.record(success: false, now: start, unitRandom: 1) }
        #expect(breaker.state == .closed, "fewer than minimumCalls never open it")
        let changed = breaker.record(success: false, now: start, unitRandom: 1)
        #expect(changed)
        #expect(breaker.state == .open(until: start + .seconds(2)))
        let duringCooldown = breaker.permits(now: start + .seconds(1))
        let afterCooldown = breaker.permits(now: start + .seconds(2))
        breaker.started(1)
        let whileProbing = breaker.permits(now: start + .seconds(3))
        #expect(duringCooldown == 0 && afterCooldown == 1)
        #expect(whileProbing == 0, "one probe at a time")
        breaker.record(success: true, now: start + .seconds(3), unitRandom: 1)
        #expect(breaker.state == .closed)
    }

    @Test func aFailedProbeDoublesTheCooldownUpToTheCap() {
        var breaker = CircuitBreaker(configuration: configuration)
        var now = start
        var cooldowns: [Duration] = []
        for _ in 0..<4 { breaker.record(success: false, now: now, unitRandom: 1) }
        for _ in 0..<4 {
            guard case .open(let until) = breaker.state else {
                Issue.record("expected open")
                return
            }
            cooldowns.append(until - now)
            now = until
            let probes = breaker.permits(now: now)
            #expect(probes == 1)
            breaker.started(1)
            breaker.record(success: false, now: now, unitRandom: 1)
        }
        #expect(cooldowns == [.seconds(2), .seconds(4), .seconds(8), .seconds(8)])
    }

    @Test func jitterShortensTheCooldownAtMostByHalf() {
        var breaker = CircuitBreaker(configuration: configuration)
        for _ in 0..<4 { breaker.record(success: false, now: start, unitRandom: 0) }
        #expect(breaker.state == .open(until: start + .seconds(1)))
    }

    @Test func anInconclusiveProbeLetsAnotherGo() {
        var breaker = CircuitBreaker(configuration: configuration)
        for _ in 0..<4 { breaker.record(success: false, now: start, unitRandom: 1) }
        let first = breaker.permits(now: start + .seconds(5))
        breaker.started(1)
        breaker.inconclusive()
        let second = breaker.permits(now: start + .seconds(5))
        #expect(first == 1 && second == 1)
    }
}

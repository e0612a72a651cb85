/// Keeps a store API outage from turning into a retry storm. A pure state machine: the caller passes the time.
///
/// Closed, it counts the last calls; when most of them failed it opens and the daemon claims nothing
/// for a cool-down (doubling with each reopening, jittered so daemons don't resume together). Then it lets
/// one probe through: success closes it, failure opens it again.
package struct CircuitBreaker: Sendable {
    /// Thresholds and cool-downs.
    package struct Configuration: Sendable, Equatable {
        /// How many recent calls are judged.
        package var window = 20
        /// Fewer calls than this never open the breaker.
        package var minimumCalls = 10
        /// Share of failed calls in the window that opens it.
        package var failureRatio = 0.5
        /// First cool-down, before jitter.
        package var baseCooldown: Duration = .seconds(2)
        /// Longest cool-down.
        package var maximumCooldown: Duration = .seconds(60)

        /// Creates the defaults: open after 10 of the last 20 calls failed, for 2 s up to 60 s.
        package init() {}
    }

    /// Where the breaker stands.
    package enum State: Sendable, Equatable {
        /// Calls flow.
        case closed
        /// No calls until the instant.
        case open(until: ContinuousClock.Instant)
        /// One probe may run; `probing` while it is out.
        case halfOpen(probing: Bool)
    }

    /// The current state.
    package private(set) var state: State = .closed
    private let configuration: Configuration
    private var recent: [Bool] = []
    private var openings = 0

    /// Creates a closed breaker.
    package init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// How many new calls may start now (`Int.max` when closed).
    package mutating func permits(now: ContinuousClock.Instant) -> Int {
        switch state {
        case .closed: return .max
        case .open(let until):
            guard now >= until else { return 0 }
            state = .halfOpen(probing: false)
            return 1
        case .halfOpen(let probing): return probing ? 0 : 1
        }
    }

    /// Notes that `count` calls started.
    package mutating func started(_ count: Int) {
        if case .halfOpen = state, count > 0 { state = .halfOpen(probing: true) }
    }

    /// Notes that a call ended with no verdict on the store API (abandoned, malformed receipt): a probe may go again.
    package mutating func inconclusive() {
        if state == .halfOpen(probing: true) { state = .halfOpen(probing: false) }
    }

    /// Records a finished call; `unitRandom` in [0, 1] jitters the next cool-down. Returns true when the state changed.
    @discardableResult
    package mutating func record(success: Bool, now: ContinuousClock.Instant, unitRandom: Double) -> Bool {
        let before = state
        switch state {
        case .halfOpen:
            success ? close() : open(now: now, unitRandom: unitRandom)
        case .open:
            break  // a call that started before opening; the probe decides
        case .closed:
            recent.append(success)
            if recent.count > configuration.window { recent.removeFirst(recent.count - configuration.window) }
            let failures = recent.lazy.filter { !$0 }.count
            if recent.count >= configuration.minimumCalls,
                Double(failures) >= configuration.failureRatio * Double(recent.count)
            {
                open(now: now, unitRandom: unitRandom)
            }
        }
        return before != state
    }

    /// The cool-down that the next opening would use, before jitter.
    package var nextCooldown: Duration {
        let doubled = configuration.baseCooldown * Double(1 << min(openings, 20))
        return min(doubled, configuration.maximumCooldown)
    }

    private mutating func open(now: ContinuousClock.Instant, unitRandom: Double) {
        let cooldown = nextCooldown * (0.5 + 0.5 * min(1, max(0, unitRandom)))
        openings += 1
        recent.removeAll()
        state = .open(until: now + cooldown)
    }

    private mutating func close() {
        openings = 0
        recent.removeAll()
        state = .closed
    }
}

import Testing

@testable import ReceiptdCore

/// The retry rules of issue 22: any 2xx delivered, 410 disables the endpoint, anything else retried at about 5 s,
/// 5 min, 30 min, 2 h, 5 h, 10 h and 10 h with jitter, honouring a longer `Retry-After` (up to 24 h), then failed.
@Suite struct WebhookRetryPolicyTests {
    static let defaults = WebhookConfiguration(url: "https://game.example/webhooks", secrets: secrets)
    static let secrets = try! WebhookSecrets(fileText: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    static let schedule: [Duration] = [
        .seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18000), .seconds(36000), .seconds(36000),
    ]
    let policy = Self.defaults.retryPolicy

    @Test func theDocumentedDefaults() {
        #expect(Self.defaults.retryDelays == Self.schedule)
        #expect(Self.defaults.jitter == 0.1)
        #expect(Self.defaults.timeout == .seconds(15))
        #expect(Self.defaults.lease == .seconds(60))
        #expect(Self.defaults.lease > Self.defaults.timeout)
        #expect(Self.defaults.concurrency == 32)
        #expect(Self.defaults.pollInterval == .seconds(1))
        #expect(WebhookRetryPolicy.longestRetryAfter == .seconds(24 * 3600))
    }

    @Test(arguments: [200, 201, 202, 204, 299])
    func any2xxIsDelivered(status: Int) {
        for attempts in [1, 4, 8, 9] {
            #expect(policy.decide(WebhookAnswer(status: status), attempts: attempts, random: 0.5) == .delivered)
        }
    }

    @Test func goneDisablesTheEndpointWhateverTheAttempt() {
        for attempts in [1, 7, 8, 20] {
            let answer = WebhookAnswer(status: 410, retryAfter: .seconds(10), error: "HTTP 410")
            #expect(policy.decide(answer, attempts: attempts, random: 0.5) == .endpointGone)
        }
    }

    @Test(arguments: [
        WebhookAnswer(status: 500, error: "HTTP 500"), WebhookAnswer(status: 429, error: "HTTP 429"),
        WebhookAnswer(status: 301, error: "HTTP 301"), WebhookAnswer(status: 302), WebhookAnswer(status: 400),
        WebhookAnswer(status: 401), WebhookAnswer(status: 404), WebhookAnswer(status: 503),
        WebhookAnswer(status: nil, error: "no answer within 15 seconds"),
        WebhookAnswer(status: nil, error: "connection refused"), WebhookAnswer(status: 199),
    ])
    func everyOtherAnswerFollowsTheScheduleThenFails(answer: WebhookAnswer) {
        for (index, delay) in Self.schedule.enumerated() {
            let attempts = index + 1
            // The middle of the jitter is the schedule itself; the ends are 10 % either way.
            #expect(policy.decide(answer, attempts: attempts, random: 0.5) == .retry(after: delay))
            guard case .retry(let low) = policy.decide(answer, attempts: attempts, random: 0) else {
                Issue.record("attempt \(attempts) not retried")
                continue
            }
            guard case .retry(let high) = policy.decide(answer, attempts: attempts, random: 0.999_999) else {
                Issue.record("attempt \(attempts) not retried")
                continue
            }
            #expect(abs((low / delay) - 0.9) < 0.000_01, "attempt \(attempts): \(low)")
            #expect(high <= delay * 1.1 && high > delay * 1.099_99, "attempt \(attempts): \(high)")
        }
        // The 8th failed attempt: the schedule is over.
        #expect(policy.decide(answer, attempts: 8, random: 0.5) == .failed)
        #expect(policy.decide(answer, attempts: 9, random: 0.5) == .failed)
    }

    @Test func theJitterStaysWithinItsBoundsForAnyRandom() {
        for attempts in 1...7 {
            let delay = Self.schedule[attempts - 1]
            for random in stride(from: -0.5, through: 1.5, by: 0.01) {
                guard
                    case .retry(let wait) = policy.decide(
                        WebhookAnswer(status: 500),
                        attempts: attempts,
                        random: random
                    )
                else {
                    Issue.record("not retried")
                    return
                }
                #expect(wait >= delay * 0.9 && wait <= delay * 1.1, "\(attempts) \(random): \(wait)")
            }
        }
    }

    @Test func aLongerRetryAfterIsHonouredAShorterOneIgnoredAndADayIsTheMost() {
        let longer = WebhookAnswer(status: 503, retryAfter: .seconds(120), error: "HTTP 503")
        #expect(policy.decide(longer, attempts: 1, random: 0.5) == .retry(after: .seconds(120)))
        let shorter = WebhookAnswer(status: 429, retryAfter: .seconds(60), error: "HTTP 429")
        #expect(policy.decide(shorter, attempts: 2, random: 0.5) == .retry(after: .seconds(300)))
        let huge = WebhookAnswer(status: 503, retryAfter: .seconds(7 * 24 * 3600), error: "HTTP 503")
        #expect(policy.decide(huge, attempts: 1, random: 0.5) == .retry(after: .seconds(24 * 3600)))
        // Even the last wait of the schedule is not stretched past a day, and the 8th attempt fails regardless.
        #expect(policy.decide(huge, attempts: 7, random: 0.5) == .retry(after: .seconds(24 * 3600)))
        #expect(policy.decide(huge, attempts: 8, random: 0.5) == .failed)
    }

    @Test func theMetricResultNamesEachDecision() {
        #expect(WebhookRetryPolicy.Decision.delivered.metricResult == "delivered")
        #expect(WebhookRetryPolicy.Decision.retry(after: .seconds(1)).metricResult == "retried")
        #expect(WebhookRetryPolicy.Decision.failed.metricResult == "failed")
        #expect(WebhookRetryPolicy.Decision.endpointGone.metricResult == "gone")
    }
}

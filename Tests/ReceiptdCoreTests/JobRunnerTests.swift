import Foundation
import Logging
import Prometheus
import Testing

@testable import ReceiptdCore

/// `JobRunner` against the in-memory queue: what each verdict leaves of the job, its attempts and its order.
@Suite struct JobRunnerTests {
    /// A verifier that answers what the test says, or waits until its task is cancelled.
    struct StubVerifier: PurchaseVerifier {
        var verdict: Verdict?

        func attempt(_ job: ClaimedJob) async -> VerificationAttempt {
            guard let verdict else {
                try? await Task.sleep(for: .seconds(3600))
                return VerificationAttempt(verdict: .retry(TransientFailure(errorClass: .transport, reason: "late")))
            }
            return VerificationAttempt(verdict: verdict, environment: .production, httpStatus: 200)
        }
    }

    static let bundleID = "com.example.game"

    var configuration: ReceiptDaemon.Configuration {
        var configuration = ReceiptDaemon.Configuration()
        configuration.expectedBundleID = Self.bundleID
        configuration.maxAttempts = 3
        configuration.backoff = Backoff(base: .seconds(10), maximum: .seconds(100))
        configuration.lease = .seconds(1)
        return configuration
    }

    func runner(
        _ verdict: Verdict?,
        queue: InMemoryJobQueue,
        configuration: ReceiptDaemon.Configuration? = nil
    )
        -> JobRunner
    {
        JobRunner(
            verifiers: [.receipt: StubVerifier(verdict: verdict)],
            queue: queue,
            configuration: configuration ?? self.configuration,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            metrics: ReceiptdMetrics(
                factory: ReceiptdMetrics.prometheusFactory(registry: PrometheusCollectorRegistry())
            )
        )
    }

    /// A queue holding one pending receipt job with `attempts` used, and that job claimed.
    func claimed(attempts: Int = 0) async throws -> (InMemoryJobQueue, ClaimedJob) {
        let queue = InMemoryJobQueue()
        queue.enqueue(
            ClaimedJob(
                id: 7,
                kind: .receipt,
                input: "e30=",
                attempts: attempts,
                malformedCount: 0,
                order: OrderSnapshot(
                    orderID: "o7",
                    productID: "gems",
                    quantity: 1,
                    createdAtMilliseconds: 0,
                    deliveredQuantity: 0,
                    checkoutAtMilliseconds: nil,
                    appAccountToken: nil,
                    accountID: nil
                ),
                userID: "u7",
                createdAtMilliseconds: 0
            )
        )
        let job = try #require(try await queue.claim(limit: 1, filter: ClaimFilter()).first)
        return (queue, job)
    }

    var verified: Verdict {
        .verified(
            VerifiedPurchases(
                purchases: [VerifiedPurchase(transactionID: "t1", productID: "gems", purchaseDateMilliseconds: 1)],
                environment: .production,
                bundleID: Self.bundleID
            )
        )
    }

    static let transient = TransientFailure(errorClass: .http, reason: "HTTP 503")

    @Test func aVerifiedAnswerSettlesTheJob() async throws {
        let (queue, job) = try await claimed()
        let healthy = await runner(verified, queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
        #expect(healthy == true)
        #expect(queue.row(7)?.state == .succeeded && queue.row(7)?.outcome == .full)
        #expect(queue.attempts(of: 7).map(\.result) == [.verified])
        #expect(queue.settles == [false])
    }

    @Test func aRetryWaitsItsBackoffAndTheNextClaimCountsAnotherAttempt() async throws {
        let (queue, job) = try await claimed()
        #expect(job.attempts == 1)
        let healthy = await runner(.retry(Self.transient), queue: queue).run(
            job,
            api: .verifyReceipt,
            abort: AbortSignal()
        )
        #expect(healthy == false)
        let row = try #require(queue.row(7))
        #expect(row.state == .pending && row.job.attempts == 1)
        #expect(row.lastError == "http: HTTP 503")
        // After the first attempt: between half of the base and the base (equal jitter).
        let first = try #require(row.delay)
        #expect(first >= .seconds(5) && first <= .seconds(10), "\(first)")
        #expect(queue.attempts(of: 7).map(\.result) == [.retry])

        let again = try #require(try await queue.claim(limit: 1, filter: ClaimFilter()).first)
        #expect(again.attempts == 2)
        _ = await runner(.retry(Self.transient), queue: queue).run(again, api: .verifyReceipt, abort: AbortSignal())
        let second = try #require(queue.row(7)?.delay)
        #expect(second >= .seconds(10) && second <= .seconds(20), "\(second)")
    }

    @Test func aRetryHonoursRetryAfterBeyondTheBackoff() async throws {
        let (queue, job) = try await claimed()
        var failure = Self.transient
        failure.notBefore = .seconds(600)
        _ = await runner(.retry(failure), queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
        #expect(queue.row(7)?.delay == .seconds(600))
    }

    @Test func aRetryAtTheLastAttemptFailsTheJobAndTheOrder() async throws {
        let (queue, job) = try await claimed(attempts: 2)
        #expect(job.attempts == 3)
        _ = await runner(.retry(Self.transient), queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
        #expect(queue.row(7)?.state == .failed && queue.row(7)?.outcome == .failed)
        #expect(queue.attempts(of: 7).map(\.result) == [.retry])
    }

    @Test func aRejectionMakesTheOrderInvalid() async throws {
        let (queue, job) = try await claimed()
        _ = await runner(.reject(reason: "21010"), queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
        #expect(queue.row(7)?.state == .failed && queue.row(7)?.outcome == .invalid)
        #expect(queue.row(7)?.lastError == "21010")
        #expect(queue.attempts(of: 7).map(\.result) == [.rejected])
    }

    @Test func anAnswerForAnotherBundleIsRejectedNotSettled() async throws {
        let (queue, job) = try await claimed()
        let other = Verdict.verified(
            VerifiedPurchases(purchases: [], environment: .production, bundleID: "com.example.other")
        )
        _ = await runner(other, queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
        #expect(queue.row(7)?.outcome == .invalid)
        #expect(queue.settles.isEmpty)
        #expect(queue.attempts(of: 7).first?.errorClass == .rejected)
    }

    @Test func aPostponedJobUsesNoAttempt() async throws {
        let (queue, job) = try await claimed(attempts: 2)
        let healthy = await runner(.postpone(after: .seconds(30), reason: "no slot"), queue: queue)
            .run(job, api: .serverAPI, abort: AbortSignal())
        #expect(healthy == nil)
        let row = try #require(queue.row(7))
        #expect(row.state == .pending && row.job.attempts == 2)
        #expect(row.delay == .seconds(30) && row.lastError == "no slot")
        #expect(queue.attempts(of: 7).isEmpty)
    }

    @Test func anAnswerForAJobSupersededMeanwhileIsDroppedNotRetried() async throws {
        for verdict in [verified, .retry(Self.transient), .reject(reason: "21010")] {
            let (queue, job) = try await claimed()
            queue.supersede(7)
            _ = await runner(verdict, queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
            #expect(queue.row(7)?.state == .superseded, "\(verdict)")
            #expect(queue.row(7)?.delay == nil && queue.row(7)?.lastError == nil, "\(verdict)")
            #expect(queue.attempts(of: 7).last?.result == .abandoned, "\(verdict)")
        }
    }

    @Test func anAbortAbandonsTheRequestAndReturnsTheJobWithoutUsingAnAttempt() async throws {
        let (queue, job) = try await claimed()
        let abort = AbortSignal()
        let runner = runner(nil, queue: queue)
        async let healthy = runner.run(job, api: .verifyReceipt, abort: abort)
        try await Task.sleep(for: .milliseconds(50))
        abort.fire()
        #expect(await healthy == nil)
        let row = try #require(queue.row(7))
        #expect(row.state == .pending && row.job.attempts == 0 && row.delay == nil)
        #expect(queue.attempts(of: 7).map(\.result) == [.abandoned])
    }

    @Test func aSettleHeldUpByALockIsTriedAgainAlone() async throws {
        let (queue, job) = try await claimed()
        queue.failSettles(with: [PostgresError(kind: .query, message: "lock timeout", sqlState: "55P03")])
        _ = await runner(verified, queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
        #expect(queue.settles == [false, true])
        #expect(queue.row(7)?.state == .succeeded)
    }

    @Test func aSettleLockedForHalfTheLeaseIsPostponedWithoutUsingAnAttempt() async throws {
        let (queue, job) = try await claimed(attempts: 2)
        let lockTimeout = PostgresError(kind: .query, message: "lock timeout", sqlState: "55P03")
        queue.failSettles(with: Array(repeating: lockTimeout, count: 100))
        _ = await runner(verified, queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
        let row = try #require(queue.row(7))
        #expect(row.state == .pending && row.job.attempts == 2)
        #expect(row.lastError?.contains("row lock") == true)
        #expect(queue.settles.count > 1 && queue.settles.dropFirst().allSatisfy { $0 })
    }

    @Test func aSettleTheServerRefusesReschedulesTheJobCountingTheAttempt() async throws {
        let (queue, job) = try await claimed()
        queue.failSettles(with: [PostgresError(kind: .query, message: "bad row", sqlState: "22P02")])
        _ = await runner(verified, queue: queue).run(job, api: .verifyReceipt, abort: AbortSignal())
        let row = try #require(queue.row(7))
        #expect(row.state == .pending && row.job.attempts == 1)
        #expect(row.lastError?.hasPrefix("recording: ") == true)
        #expect(queue.settles == [false])
    }
}

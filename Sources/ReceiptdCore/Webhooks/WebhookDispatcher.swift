import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Tells the game server about changes: sends the `pending` events of `iap.webhook_events` to
/// `RECEIPTD_WEBHOOK_URL`, up to `concurrency` at a time, and records each attempt (batched, so that a busy
/// endpoint costs the database one statement per batch of answers, not one per event).
///
/// Every daemon runs one; events are claimed with `SKIP LOCKED` for the lease, so a daemon killed mid-call
/// leaves its events to be sent again (receivers deduplicate on `webhook-id`). Without a URL it only waits for
/// shutdown. (Whether changes write events at all, `iap.webhook_endpoint.configured`, the daemon writes at start,
/// before it claims a job.)
package final class WebhookDispatcher: Service {
    private let queue: any WebhookQueue
    private let configuration: WebhookConfiguration?
    private let logger: Logger
    private let metrics: ReceiptdMetrics
    /// Rung by the daemon's listener for each `NOTIFY iap_webhooks`.
    private let doorbell: Doorbell

    /// A dispatcher for `configuration` (nil: webhooks are off).
    package init(
        queue: any WebhookQueue,
        configuration: WebhookConfiguration?,
        logger: Logger,
        metrics: ReceiptdMetrics,
        doorbell: Doorbell
    ) {
        self.queue = queue
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.doorbell = doorbell
    }

    /// Sends until graceful shutdown; attempts in flight finish (within the timeout) and are recorded first.
    package func run() async throws {
        guard let configuration else {
            // A service that returns would stop the daemon.
            try? await gracefulShutdown()
            return
        }
        let client = WebhookSender.makeClient(concurrency: configuration.concurrency)
        let sender = WebhookSender(
            client: client,
            url: configuration.url,
            secrets: configuration.secrets,
            timeout: configuration.timeout
        )
        let pipeline = Pipeline()
        await withGracefulShutdownHandler {
            await send(sender: sender, configuration: configuration, pipeline: pipeline)
        } onGracefulShutdown: {
            // Stop waiting for the next poll: the loop ends at once, and the sends in flight finish.
            self.doorbell.ring()
            pipeline.slotFreed.ring()
        }
        try? await client.shutdown()
    }

    /// Claims and sends until graceful shutdown, then waits for the sends in flight and their recording.
    private func send(sender: WebhookSender, configuration: WebhookConfiguration, pipeline: Pipeline) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.record(pipeline) }
            var database = ReconnectBackoff()
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                let free = configuration.concurrency - pipeline.inFlight
                // Claims go in batches of at least a quarter of the slots: each claim reads the due backlog, and
                // one claim per freed slot would read it once per event.
                guard free >= max(1, configuration.concurrency / 4) else {
                    await pipeline.slotFreed.wait(upTo: configuration.pollInterval)
                    continue
                }
                do {
                    let events = try await queue.claimWebhookEvents(limit: free, lease: configuration.lease)
                    if database.succeeded() { logger.notice("webhooks: database reachable again") }
                    for event in events {
                        pipeline.started()
                        group.addTask {
                            let attempt = await self.attempt(event, sender: sender, policy: configuration.retryPolicy)
                            pipeline.finished(attempt)
                        }
                    }
                    if events.count == free { continue }
                } catch {
                    if database.failed() {
                        logger.error(
                            "webhooks: could not claim events (database unreachable?); trying again",
                            metadata: [LogKey.error: "\(error)"]
                        )
                    }
                }
                await doorbell.wait(upTo: configuration.pollInterval)
            }
            while pipeline.inFlight > 0 { await pipeline.slotFreed.wait(upTo: .milliseconds(100)) }
            pipeline.close()
        }
    }

    /// Sends `event` once and decides what to record.
    private func attempt(
        _ event: OwedWebhookEvent,
        sender: WebhookSender,
        policy: WebhookRetryPolicy
    ) async -> WebhookAttempt {
        let answer = await sender.send(event)
        let decision = policy.decide(answer, attempts: event.attempts, random: Double.random(in: 0..<1))
        let metadata: Logger.Metadata = [
            "webhook_id": "\(event.id)", "type": "\(event.type.rawValue)", "attempt": "\(event.attempts)",
            "status": "\(answer.status.map(String.init) ?? "none")",
        ]
        metrics.webhookDelivery(type: event.type, result: decision.metricResult)
        switch decision {
        case .delivered:
            logger.debug("webhook delivered", metadata: metadata)
            return WebhookAttempt(
                id: event.id,
                attempts: event.attempts,
                state: .delivered,
                status: answer.status,
                error: nil
            )
        case .retry(let delay):
            logger.warning(
                "webhook not taken; sending it again later",
                metadata: metadata.merging([
                    LogKey.error: "\(answer.error ?? "")", "next": "in \(String(format: "%.1f", delay.seconds)) s",
                ]) { $1 }
            )
            return WebhookAttempt(
                id: event.id,
                attempts: event.attempts,
                state: .pending,
                retryAfter: delay,
                status: answer.status,
                error: answer.error
            )
        case .failed:
            logger.error(
                "webhook failed for good after every retry; `receiptd webhooks replay` sends it again",
                metadata: metadata.merging([LogKey.error: "\(answer.error ?? "")"]) { $1 }
            )
            return WebhookAttempt(
                id: event.id,
                attempts: event.attempts,
                state: .failed,
                status: answer.status,
                error: answer.error
            )
        case .endpointGone:
            // Disabled before the event is put back, so that no daemon sends it again meanwhile.
            do {
                if try await queue.disableWebhooks(eventID: event.id) {
                    logger.critical(
                        "webhook endpoint answered 410 Gone: nothing more is sent, and every event waits, until an operator runs `receiptd webhooks enable`",
                        metadata: metadata
                    )
                }
            } catch {
                logger.error(
                    "webhooks: could not disable the endpoint after 410 Gone; the event's lease returns it",
                    metadata: metadata.merging([LogKey.error: "\(error)"]) { $1 }
                )
            }
            return WebhookAttempt(
                id: event.id,
                attempts: event.attempts,
                state: .pending,
                status: answer.status,
                error: "410 Gone: the endpoint is disabled until `receiptd webhooks enable`"
            )
        }
    }

    /// Records finished attempts in batches until the pipeline is closed and empty. A batch that cannot be
    /// recorded is kept and tried again; at shutdown it is dropped, and the events' leases return them.
    private func record(_ pipeline: Pipeline) async {
        var database = ReconnectBackoff()
        while true {
            let batch = pipeline.takeAttempts()
            guard !batch.isEmpty else {
                if pipeline.isClosed { return }
                await pipeline.attemptsReady.wait(upTo: .milliseconds(250))
                continue
            }
            do {
                try await queue.recordWebhookAttempts(batch)
                if database.succeeded() { logger.notice("webhooks: recording again") }
                // A delivered (or failed) event lets its order's next one go: look now, not at the next poll.
                if batch.contains(where: { $0.state != .pending }) { doorbell.ring() }
            } catch {
                if database.failed() {
                    logger.error(
                        "webhooks: could not record attempts (database unreachable?); trying again",
                        metadata: [LogKey.error: "\(error)", "attempts": "\(batch.count)"]
                    )
                }
                // Cancelled (not a graceful stop): the pauses would no longer wait, and the loop would spin.
                if (pipeline.isClosed && Task.isShuttingDownGracefully) || Task.isCancelled {
                    logger.warning(
                        "webhooks: attempts left unrecorded at shutdown; their events are sent again",
                        metadata: ["attempts": "\(batch.count)"]
                    )
                    return
                }
                pipeline.putBack(batch)
                await database.wait()
            }
        }
    }

    /// The sends in flight and the attempts waiting to be recorded, shared by the claim loop, the sends and the
    /// recorder.
    private final class Pipeline: Sendable {
        private struct State {
            var inFlight = 0
            var attempts: [WebhookAttempt] = []
            var closed = false
        }

        private let state = Mutex(State())
        /// Rung when a send finishes: the claim loop may claim again.
        let slotFreed = Doorbell()
        /// Rung when an attempt waits to be recorded.
        let attemptsReady = Doorbell()

        var inFlight: Int { state.withLock { $0.inFlight } }
        var isClosed: Bool { state.withLock { $0.closed } }

        func started() { state.withLock { $0.inFlight += 1 } }

        func finished(_ attempt: WebhookAttempt) {
            state.withLock {
                $0.inFlight -= 1
                $0.attempts.append(attempt)
            }
            attemptsReady.ring()
            slotFreed.ring()
        }

        func takeAttempts() -> [WebhookAttempt] {
            state.withLock { state in
                defer { state.attempts = [] }
                return state.attempts
            }
        }

        func putBack(_ attempts: [WebhookAttempt]) { state.withLock { $0.attempts = attempts + $0.attempts } }

        /// No more sends: the recorder ends once everything is recorded.
        func close() {
            state.withLock { $0.closed = true }
            attemptsReady.ring()
        }
    }
}

extension WebhookRetryPolicy.Decision {
    /// The `result` label of `receiptd_webhook_deliveries_total`.
    var metricResult: String {
        switch self {
        case .delivered: "delivered"
        case .retry: "retried"
        case .failed: "failed"
        case .endpointGone: "gone"
        }
    }
}

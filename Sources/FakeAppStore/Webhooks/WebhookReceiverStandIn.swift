import Foundation
import Logging
import NIOCore
import ReceiptdCore
import Synchronization

/// A stand-in for the game server's webhook endpoint, for the demo and the tests: checks each request as a
/// Standard Webhooks library would (``WebhookSignatureCheck``), answers 401 to one that fails, and otherwise
/// answers as scripted (``script(_:)``), 204 when nothing is scripted.
///
/// Serves on one port:
/// - `POST` to any other path: a webhook;
/// - `POST /fake/script` with a JSON array of ``WebhookReceiverAnswer``s: queued after those already scripted,
///   answers 204;
/// - `GET /fake/received`: every request taken, as a JSON array of ``ReceivedWebhook``s;
/// - `GET /healthz`.
package final class WebhookReceiverStandIn: Sendable {
    /// How the stand-in checks requests.
    package let check: WebhookSignatureCheck
    private let listener: StandInListener
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var script: [WebhookReceiverAnswer] = []
        /// Answers for one webhook-id, taken before the shared script.
        var scriptByID: [String: [WebhookReceiverAnswer]] = [:]
        var received: [ReceivedWebhook] = []
        var taken: Set<String> = []
    }

    /// A receiver trusting `secrets`, on `host:port` (0: the kernel picks); nothing is bound until ``start()``.
    package init(
        secrets: WebhookSecrets,
        host: String = "127.0.0.1",
        port: Int = 0,
        logger: Logger = Logger(label: "fake-webhook-receiver")
    ) {
        check = WebhookSignatureCheck(secrets: secrets.all)
        listener = StandInListener(host: host, port: port)
        self.logger = logger
    }

    /// Binds and serves; returns the bound port.
    package func start() async throws -> Int {
        if let port = listener.servingPort { return port }
        let port = try await listener.start { [self] in WebhookReceiverHandler(receiver: self) }
        logger.info("fake webhook receiver listening", metadata: ["url": "\(url)"])
        return port
    }

    /// Closes the listener and every open connection (a hung request's sender sees its connection close).
    package func shutdown() async throws {
        try await listener.shutdown()
    }

    /// Starts, serves until the surrounding task is cancelled, then shuts down. For the CLI.
    package func run() async throws {
        _ = try await start()
        await listener.waitUntilClosed()
        try await shutdown()
    }

    /// `http://HOST:PORT/webhooks`, the URL to give the daemon; right once ``start()`` returned.
    package var url: String { listener.baseURL + "/webhooks" }

    /// Queues answers for the next verified requests, after those already queued.
    package func script(_ answers: [WebhookReceiverAnswer]) {
        state.withLock { $0.script += answers }
    }

    /// Queues answers for the next verified requests carrying webhook-id `id`, after those already queued for it;
    /// they come before the shared script's.
    package func script(_ answers: [WebhookReceiverAnswer], for id: String) {
        state.withLock { $0.scriptByID[id, default: []] += answers }
    }

    /// Every request taken so far, in arrival order.
    package func received() -> [ReceivedWebhook] {
        state.withLock { $0.received }
    }

    /// The verified requests answered 2xx, one per id (the first), in arrival order: what a deduplicating
    /// receiver acted on.
    package func delivered() -> [ReceivedWebhook] {
        received().filter { $0.verified && !$0.duplicate && ($0.status.map { (200..<300).contains($0) } ?? false) }
    }

    /// Checks and records one webhook request; returns the answer to give.
    func take(id: String?, timestamp: String?, signature: String?, body: [UInt8]) -> WebhookReceiverAnswer {
        let refusal = check.refusal(id: id, timestamp: timestamp, signature: signature, body: body)
        let text = String(decoding: body, as: UTF8.self)
        let type =
            (try? JSONSerialization.jsonObject(with: Data(body))).flatMap { $0 as? [String: Any] }?["type"] as? String
        return state.withLock { state in
            let identifier = id ?? ""
            let answer: WebhookReceiverAnswer
            if refusal != nil {
                answer = .status(401)
            } else if let first = state.scriptByID[identifier]?.first {
                answer = first
                state.scriptByID[identifier]?.removeFirst()
            } else {
                answer = state.script.isEmpty ? .status(204) : state.script.removeFirst()
            }
            let status: Int? =
                switch answer {
                case .status(let code, _), .delayed(_, let code): code
                case .hang: nil
                }
            state.received.append(
                ReceivedWebhook(
                    id: identifier,
                    timestamp: timestamp ?? "",
                    signature: signature ?? "",
                    body: text,
                    type: type,
                    refusal: refusal,
                    duplicate: state.taken.contains(identifier),
                    status: status,
                    receivedAt: Date()
                )
            )
            if let status, (200..<300).contains(status), refusal == nil { state.taken.insert(identifier) }
            return answer
        }
    }
}

import ArgumentParser
import ReceiptdCore

/// `receiptd webhooks replay ID…`: sends webhook events again.
struct WebhooksReplayCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Send webhook events again (iap.replay_webhook_events): pending, due now, attempts 0, the same id.",
        discussion:
            "Any event may be replayed: failed, delivered (the receiver deduplicates on the id) or pending. Exit 2 for an id that cannot be one (msg_…), 3 naming the ids no event has (the others are replayed)."
    )

    @OptionGroup var options: OperatorOptions

    static let errorName = "webhooks replay"

    @Argument(help: "Webhook ids (msg_…), as `receiptd webhooks` lists them.")
    var ids: [String]

    func validate() throws {
        guard !ids.isEmpty else { throw ValidationError("give at least one webhook id (msg_…)") }
        if let bad = ids.first(where: { !OperatorQueries.isWebhookEventID($0) }) {
            throw ValidationError(
                "'\(bad.terminalSafe)' is not a webhook id: msg_ then letters, digits, _ or -, at most "
                    + "\(OperatorQueries.webhookEventIDMaxLength) characters"
            )
        }
    }

    func run() async throws {
        var notFound: [String] = []
        try await perform(
            { queries in
                let result = try await queries.replayWebhookEvents(ids)
                notFound = result.notFound
                return result
            },
            text: Self.text
        )
        if !notFound.isEmpty {
            throw report(OperatorError.notFound("no webhook event " + notFound.joined(separator: ", ")))
        }
    }

    /// One line per event replayed, for people.
    static func text(_ result: WebhookReplayResult) -> String {
        guard !result.replayed.isEmpty else { return "No webhook event replayed." }
        return result.replayed.map { "Replayed \($0): pending, due now, attempts 0." }.joined(separator: "\n")
    }
}

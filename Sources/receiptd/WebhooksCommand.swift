import ArgumentParser
import ReceiptdCore

/// `receiptd webhooks`: the webhook endpoint's state, then the events, newest first, filtered.
struct WebhooksCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "List the webhook events sent to the game server (iap.webhook_events), newest first.",
        discussion:
            "The table starts with the endpoint's state; --json prints the events alone, each with its payload (the body's data). `replay` sends events again, `enable` resumes sending after the endpoint answered 410 Gone.",
        subcommands: [WebhooksReplayCommand.self, WebhooksEnableCommand.self]
    )

    @OptionGroup var options: OperatorOptions

    @Option(help: "Only events in this state.")
    var state: WebhookEventState?

    @Option(
        help: "Only events written since then: 90m, 2h, 7d or an ISO-8601 time.",
        transform: TimeBound.init(parsing:)
    )
    var since: TimeBound?

    @Option(help: "At most this many.")
    var limit = 50

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let filter = WebhookFilter(state: state, since: since, limit: limit)
        try await perform({ try await $0.webhooks(filter) }, text: Self.text)
    }

    /// The endpoint's line, then one line per event, for people.
    static func text(_ listing: WebhookListing) -> String {
        let events =
            listing.events.isEmpty
            ? "No webhook events match."
            : TextTable(
                headers: [
                    "CREATED", "ID", "TYPE", "ORDER", "USER", "STATE", "ATTEMPTS", "LAST STATUS", "NEXT ATTEMPT",
                    "DELIVERED", "LAST ERROR",
                ],
                rows: listing.events.map { event in
                    [
                        event.createdAt, event.id, event.type, event.orderID, event.userID, event.state.rawValue,
                        String(event.attempts), event.lastStatus.map(String.init), event.nextAttemptAt,
                        event.deliveredAt, event.lastError,
                    ]
                }
            ).render()
        return endpointLine(listing.endpoint) + "\n\n" + events
    }

    /// `Webhook endpoint: …`: configured or not, and a 410 Gone's disable with what to do about it.
    static func endpointLine(_ endpoint: WebhookEndpointStatus) -> String {
        var line =
            "Webhook endpoint: "
            + (endpoint.configured
                ? "configured" : "not configured (no daemon runs with RECEIPTD_WEBHOOK_URL: changes write no events)")
        if let disabledAt = endpoint.disabledAt {
            line +=
                "; DISABLED since \(disabledAt) (410 Gone"
                + (endpoint.disabledEvent.map { " to \($0)" } ?? "")
                + "): nothing is sent and every event waits; run `receiptd webhooks enable` once the endpoint is back"
        }
        return line.terminalSafe
    }
}

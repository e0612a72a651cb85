import ArgumentParser
import Foundation
import ReceiptdCore

/// `receiptd webhooks enable`: resumes sending after the endpoint answered 410 Gone.
struct WebhooksEnableCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Resume sending webhooks after the endpoint answered 410 Gone (iap.enable_webhooks).",
        discussion:
            "Every pending event becomes due now; nothing was lost while the endpoint was disabled. The operator's name (the OS user) is recorded as enabled_by."
    )

    @OptionGroup var options: OperatorOptions

    static let errorName = "webhooks enable"

    func run() async throws {
        try await perform({ try await $0.enableWebhooks(actor: ProcessInfo.processInfo.userName) }, text: Self.text)
    }

    /// Whether it was disabled, and what is pending now, for people.
    static func text(_ result: WebhookEnableResult) -> String {
        var text =
            result.wasDisabled
            ? "Webhooks enabled: the endpoint had been disabled since \((result.disabledAt ?? "-").terminalSafe) "
                + "(410 Gone" + (result.disabledEvent.map { " to \($0.terminalSafe)" } ?? "") + ")."
            : "Webhooks were not disabled; nothing changed."
        text += " Events pending: \(result.pending)" + (result.pending > 0 ? ", all due now." : ".")
        if !result.configured {
            text += "\nNo daemon runs with RECEIPTD_WEBHOOK_URL: nothing is sent until one does."
        }
        return text
    }
}

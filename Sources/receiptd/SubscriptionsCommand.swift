import ArgumentParser
import ReceiptdCore

/// `receiptd subscriptions USER [--json]`: a player's subscriptions, with their periods and the states they went
/// through.
struct SubscriptionsCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "Show a player's subscriptions (iap.subscriptions): state, entitlement, periods and history.",
        discussion:
            "A player is entitled while the state is active or grace_period and entitled_until has not passed (iap.entitlements). Exit 2 for an empty user."
    )

    @OptionGroup var options: OperatorOptions

    @Argument(help: "The player's user id, as the game enqueues it.")
    var user: String

    func validate() throws {
        guard !user.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("USER must not be empty.")
        }
    }

    func run() async throws {
        try await perform({ try await $0.subscriptions(of: user) }, text: Self.text)
    }

    /// Each subscription's line, then its periods and history, for people.
    static func text(_ subscriptions: [SubscriptionSummary]) -> String {
        guard !subscriptions.isEmpty else { return "No subscriptions." }
        return subscriptions.map { subscription in
            var lines = [
                "\(subscription.subscriptionID) (\(subscription.store.rawValue)) \(subscription.productID): "
                    + "\(subscription.state), entitled until \(subscription.entitledUntil ?? "-"), expires "
                    + "\(subscription.expiresAt ?? "-"), auto-renew \(subscription.autoRenew ? "on" : "off")"
                    + (subscription.renewsTo.map { ", renews to \($0)" } ?? "")
                    + (subscription.ownership == "family_shared" ? ", family-shared" : "")
            ].map(\.terminalSafe)
            lines.append(
                TextTable(
                    headers: ["PERIOD FROM", "TO", "TRANSACTION", "ORDER", "GRANTED", "REVOKED"],
                    rows: subscription.periods.map { period in
                        [
                            period.periodStart, period.periodEnd, period.transactionID, period.orderID,
                            period.grantedAt, period.revokedAt,
                        ]
                    }
                ).render()
            )
            lines.append(
                TextTable(
                    headers: ["AT", "STATE", "PRODUCT", "ENTITLED UNTIL", "AUTO-RENEW"],
                    rows: subscription.history.map { change in
                        [
                            change.at, change.state, change.productID, change.entitledUntil,
                            change.autoRenew ? "on" : "off",
                        ]
                    }
                ).render()
            )
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}

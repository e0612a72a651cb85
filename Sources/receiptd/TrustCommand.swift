import ArgumentParser
import Foundation
import ReceiptdCore

/// `receiptd trust USER [--store apple|google] [--set trusted|untrusted]`: shows or sets a player's trust level.
struct TrustCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Show a player's trust level in each store (iap.trust_of), or set it in one (iap.set_trust).",
        discussion:
            "A trusted player's order may be granted provisionally while its store fails (RECEIPTD_PROVISIONAL=on). --set needs --store; the operator's name (the OS user) is recorded as the reason, and the streak starts again. Exit 2 for a bad user, store or level, 4 when the database refuses the user id."
    )

    @OptionGroup var options: OperatorOptions

    @Argument(help: "The player's user id, as the game enqueues it.")
    var user: String

    @Option(help: "Only this store: apple or google (required with --set).")
    var store: Store?

    @Option(name: .customLong("set"), help: "Set the level in --store: trusted or untrusted.")
    var level: TrustLevel?

    func validate() throws {
        guard !user.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("USER must not be empty.")
        }
        if level != nil && store == nil {
            throw ValidationError("--set needs --store apple or --store google: a level is set in one store.")
        }
    }

    func run() async throws {
        if let level, let store {
            try await perform({
                [try await $0.setTrust(of: user, store: store, to: level, actor: ProcessInfo.processInfo.userName)]
            }) { levels in
                "Trust of \(user.terminalSafe) in \(store.rawValue) set to \(level.rawValue).\n\n" + Self.text(levels)
            }
        } else {
            try await perform({ try await $0.trust(of: user, store: store) }, text: Self.text)
        }
    }

    /// The player's levels for people, one store a row.
    static func text(_ levels: [UserTrust]) -> String {
        "User \((levels.first?.userID ?? "").terminalSafe)\n"
            + TextTable(
                headers: ["STORE", "LEVEL", "STREAK", "SINCE", "REASON", "ORDER", "INITIAL", "UNCONFIRMED GRANTS"],
                rows: levels.map { trust in
                    [
                        trust.store.rawValue, trust.level.rawValue, String(trust.streak), trust.changedAt, trust.reason,
                        trust.orderID, trust.initial ? "yes" : "no", String(trust.unconfirmedGrants),
                    ]
                }
            ).render()
    }
}

import ArgumentParser
import ReceiptdCore

/// `receiptd refunds [list] [USER] [--state S] [--json]`: the requests, open ones first by deadline.
struct RefundsListCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the refund requests: open ones first, nearest deadline first (the default of `refunds`)."
    )

    static let errorName = "refunds"

    @OptionGroup var options: OperatorOptions

    @Argument(help: "Only this player's requests.")
    var user: String?

    @Option(help: "Only requests in this state.")
    var state: RefundRequestState?

    @Option(help: "At most this many.")
    var limit = 50

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
        if let user, user.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("USER must not be empty.")
        }
    }

    func run() async throws {
        try await perform({ try await $0.refundRequests(userID: user, state: state, limit: limit) }, text: Self.text)
    }

    /// One line per request, for people.
    static func text(_ requests: [RefundRequestSummary]) -> String {
        guard !requests.isEmpty else { return "No refund requests match." }
        return TextTable(
            headers: [
                "REQUEST", "STORE", "TRANSACTION", "USER", "STATE", "ANSWER BY", "ANSWERED BY", "PREFERENCE",
                "CONSUMED", "REASON", "LAST ERROR",
            ],
            rows: requests.map { request in
                [
                    request.requestID, request.store.rawValue, request.transactionID, request.userID,
                    request.state.rawValue, request.answerBy, request.answeredBy?.rawValue,
                    request.preference?.rawValue,
                    request.consumedMilliunits.map(String.init), request.reason, request.lastError,
                ]
            }
        ).render()
    }
}

import FakeAppStore
import Foundation
import ReceiptdCore

extension DemoRun {
    /// The order whose purchase Apple asks about and then refunds, after the game granted it.
    static let refundedOrder = "demo-sk2-signed"
    /// Its transaction and player.
    static let refundedTransaction = "2000000001"
    static let refundedUser = "nina"

    /// After delivery: the player consents to consumption answers, Apple (the stand-in) asks for consumption
    /// information and receiptd answers it, then Apple refunds 40% of the purchase (a prorated refund: the row stays
    /// delivered) and the game finds the share in `iap.owed_revocations` and marks it handled. Each step goes through
    /// the notification endpoint at `intakeURL`.
    func hearAppleAfterDelivery(
        on connection: PostgresConnection,
        standIn: AppStoreStandIn,
        intakeURL: String
    ) async throws {
        try await connection.execute("SELECT iap.set_consumption_consent($1, true)", [Self.refundedUser])
        let purchase = SignedTransactionPayload(
            transactionId: Self.refundedTransaction,
            productId: "com.example.gems100"
        )
        let request = try await standIn.sendNotification(
            ServerAPINotificationOrder(notificationType: "CONSUMPTION_REQUEST", transaction: purchase, url: intakeURL)
        )
        say(
            "Apple asks for consumption information about \(Self.refundedTransaction): the endpoint answered "
                + "\(request.httpStatus.map(String.init) ?? "nothing")"
        )
        let sent = try await poll("the consumption answer", on: connection) {
            try await $0.execute(
                """
                SELECT delivery_status || ', preference ' || preference || ' (answered by ' || answered_by || ')'
                    AS answer
                FROM iap.refund_requests WHERE request_id = $1 AND state = 'answered'
                """,
                [request.notificationUUID]
            ).first?["answer"]
        }
        let answered = standIn.recordedConsumptionRequests().last { $0.httpStatus == 202 }
        say(
            "The game did not answer; consumption information sent for \(Self.refundedTransaction): deliveryStatus "
                + "\(sent), Apple answered \(answered.map { String($0.httpStatus) } ?? "-")"
        )

        var refund = purchase
        refund.revocationDate = SignedTransactionPayload.nowMilliseconds()
        refund.revocationReason = 0
        refund.revocationType = "REFUND_PRORATED"
        refund.revocationPercentage = 40_000
        let refunded = try await standIn.sendNotification(
            ServerAPINotificationOrder(notificationType: "REFUND", transaction: refund, url: intakeURL)
        )
        say(
            "Apple refunds 40% of \(Self.refundedTransaction) (REFUND_PRORATED): the endpoint answered "
                + "\(refunded.httpStatus.map(String.init) ?? "nothing")"
        )
        let owed = try await poll("the revocation owed to the game", on: connection) {
            try await $0.execute(
                """
                SELECT transaction_id || ' of ' || order_id || ' (' || revocation_reason || ', share '
                       || coalesce(trim_scale(revocation_percentage / 1000.0) || '%', 'all') || ', ' || revoked_quantity
                       || ' whole unit(s), granted: ' || granted || ')' AS line
                FROM iap.owed_revocations($1) WHERE transaction_id = $2
                """,
                [Self.refundedUser, Self.refundedTransaction]
            ).first?["line"]
        }
        say("iap.owed_revocations('\(Self.refundedUser)'): \(owed)")
        let handled =
            try await connection.execute(
                "SELECT iap.mark_revocation_handled(ARRAY[$1]) AS n",
                [Self.refundedTransaction]
            ).first?.int("n") ?? 0
        say("The game took that share back: iap.mark_revocation_handled marked \(handled) revocation(s)")
    }

    /// Waits up to 30 s for `read` to find a value.
    func poll(
        _ what: String,
        on connection: PostgresConnection,
        _ read: (PostgresConnection) async throws -> String?
    ) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let value = try await read(connection) { return value }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ToolError("demo: no \(what) after 30 s")
    }
}

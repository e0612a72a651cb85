import FakeAppStore
import Foundation
import ReceiptdCore

extension DemoRun {
    /// The order Google reports paid before the client says anything, and later refunds.
    static let reportedOrder = "demo-gp-rtdn"
    /// Its player, the account id the game bound at checkout, its product and Google's `orderId`.
    static let reportedUser = "omar"
    static let reportedAccount = "acct-omar"
    static let reportedProduct = "com.example.gems100"
    static let reportedOrderID = "GPA.3399-0000-0000-00001"

    /// Google's side after payment: the stand-in Google Play pushes a purchase the client never reported, which
    /// settles to the order bound to its account id; the game grants it; the buyer's bank disputes it and the game
    /// answers Google's chargeback review; then Google refunds it, and the game finds the revocation in
    /// `iap.owed_revocations` and marks it handled. Each push goes through the
    /// notification endpoint at `intakeURL` with an OIDC token.
    func hearGoogleWithoutTheClient(
        on connection: PostgresConnection,
        googlePlay: GooglePlayStandIn,
        intakeURL: String
    ) async throws {
        try await connection.execute(
            "SELECT iap.create_order($1, $2, $3, 1, NULL, $4)",
            [Self.reportedOrder, Self.reportedUser, Self.reportedProduct, Self.reportedAccount]
        )
        let token = SyntheticPurchaseToken(
            productID: Self.reportedProduct,
            orderID: Self.reportedOrderID,
            accountID: Self.reportedAccount
        )
        .encoded()
        let purchased = try await googlePlay.push(
            .oneTimeProduct(token: token, sku: Self.reportedProduct, packageName: googlePlay.packageName),
            to: intakeURL,
            audience: Self.googlePushAudience
        )
        say(
            "Google reports a purchase by \(Self.reportedAccount) the client never sent: the endpoint answered "
                + "\(purchased)"
        )
        let owed = try await poll("the delivery of the purchase Google reported", on: connection) {
            try await $0.execute(
                "SELECT transaction_id FROM iap.owed_deliveries($1) WHERE order_id = $2",
                [Self.reportedUser, Self.reportedOrder]
            ).first?["transaction_id"]
        }
        say("iap.owed_deliveries('\(Self.reportedUser)'): \(owed) for \(Self.reportedOrder), which no client sent")
        try await connection.execute("SELECT iap.mark_granted($1, ARRAY[$2])", [Self.reportedOrder, owed])
        try await answerChargebackReview(on: connection, googlePlay: googlePlay, intakeURL: intakeURL)

        googlePlay.void(token: token, orderID: Self.reportedOrderID)
        let refundedAt = ContinuousClock.now
        let voided = try await googlePlay.push(
            .voided(token: token, orderID: Self.reportedOrderID, packageName: googlePlay.packageName),
            to: intakeURL,
            audience: Self.googlePushAudience
        )
        let revocation = try await poll("the revocation of the refunded Google purchase", on: connection) {
            try await $0.execute(
                """
                SELECT transaction_id || ' of ' || order_id || ' (' || revocation_reason || ', granted: ' || granted
                       || ', units: ' || revoked_quantity || ')' AS line
                FROM iap.owed_revocations($1) WHERE transaction_id = $2
                """,
                [Self.reportedUser, Self.reportedOrderID]
            ).first?["line"]
        }
        let elapsed = Int((ContinuousClock.now - refundedAt).seconds * 1000)
        say(
            "Google refunds it (the endpoint answered \(voided)); \(elapsed) ms later "
                + "iap.owed_revocations('\(Self.reportedUser)'): \(revocation)"
        )
        let handled =
            try await connection.execute(
                "SELECT iap.mark_revocation_handled(ARRAY[$1]) AS n",
                [Self.reportedOrderID]
            ).first?.int("n") ?? 0
        say("The game took the goods back: iap.mark_revocation_handled marked \(handled) revocation(s)")
    }

    /// The buyer's bank disputes the purchase: Google asks for the developer's view (a chargeback review), receiptd
    /// asks the game (NOTIFY iap_refund_requested), the game answers that the gems were all spent, and receiptd
    /// sends Google `orders.reviewrefund` with `DECLINE` before the 24-hour deadline.
    private func answerChargebackReview(
        on connection: PostgresConnection,
        googlePlay: GooglePlayStandIn,
        intakeURL: String
    ) async throws {
        let (status, token) = try await googlePlay.pushRefundReview(
            orderID: Self.reportedOrderID,
            reason: 7,
            to: intakeURL,
            audience: Self.googlePushAudience
        )
        let deadline = try await poll("the chargeback review's refund request", on: connection) {
            try await $0.execute(
                "SELECT answer_by::text FROM iap.refund_requests WHERE request_id = $1 AND state = 'waiting'",
                [token]
            ).first?["answer_by"]
        }
        say(
            "Google asks about a chargeback of \(Self.reportedOrderID) (the endpoint answered \(status)); the game is "
                + "asked, and Google needs an answer by \(deadline)"
        )
        try await connection.execute("SELECT iap.answer_refund_request($1, 100000, 'decline')", [token])
        let sent = try await poll("the answer to Google's chargeback review", on: connection) {
            try await $0.execute(
                """
                SELECT answered_by || ': ' || preference || ', ' || consumed_milliunits || ' m% consumed' AS line
                FROM iap.refund_requests WHERE request_id = $1 AND state = 'answered'
                """,
                [token]
            ).first?["line"]
        }
        let call = googlePlay.recordedRefundReviews().last { $0.pendingRefundToken == token }
        say(
            "The game answered the chargeback review (\(sent)); orders.reviewrefund sent Google "
                + "\(call?.refundPreference ?? "nothing") with \(call?.consumptionPercentageMilliunits ?? 0) milliunits"
        )
    }
}

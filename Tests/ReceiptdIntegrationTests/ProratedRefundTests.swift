import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Apple's prorated refunds (`REFUND` with `revocationType` `REFUND_PRORATED`, issue 34): a share of a row that stays
/// delivered, in whole units and in thousandths of a percent, handed to the game once, and raised by a later,
/// larger refund; before delivery, the purchase still delivers with that share revoked.
@Suite struct ProratedRefundTests {
    static func transaction(
        _ id: String,
        quantity: Int = 1,
        type: String? = nil,
        percentage: Int? = nil
    ) -> SignedTransactionPayload {
        SignedTransactionPayload(
            transactionId: id,
            productId: "gems",
            quantity: quantity,
            revocationDate: type == nil ? nil : SignedTransactionPayload.nowMilliseconds(),
            revocationReason: type == nil ? nil : 0,
            revocationType: type,
            revocationPercentage: percentage
        )
    }

    func deliver(_ f: Fixture, _ id: String, quantity: Int, order: String) async throws {
        try await f.enqueue(
            order,
            user: "alice",
            transaction: f.standIn.testChain.signedTransaction(Self.transaction(id, quantity: quantity)),
            quantity: quantity
        )
        try await f.waitUntilSettled()
    }

    func refund(
        _ f: Fixture,
        _ id: String,
        quantity: Int,
        percentage: Int?,
        signedDate: Int64 = SignedTransactionPayload.nowMilliseconds()
    ) async throws -> Int64 {
        try await f.recordNotification(
            "REFUND",
            transaction: Self.transaction(
                id,
                quantity: quantity,
                type: percentage == nil ? "REFUND_FULL" : "REFUND_PRORATED",
                percentage: percentage
            ),
            signedDate: signedDate
        )
    }

    /// `transaction_id:revoked_quantity:revocation_percentage:reason` of what the game is owed, by id.
    func owed(_ f: Fixture) async throws -> String? {
        try await f.value(
            """
            SELECT string_agg(transaction_id || ':' || revoked_quantity || ':' || coalesce(revocation_percentage::text, 'all')
                              || ':' || revocation_reason, ',' ORDER BY transaction_id)
            FROM iap.owed_revocations('alice')
            """
        )
    }

    func ledger(_ f: Fixture, _ id: String) async throws -> String? {
        try await f.value(
            """
            SELECT (revoked_at IS NOT NULL) || ':' || revoked_quantity || ':' || coalesce(revocation_percentage::text, '-')
                   || ':' || coalesce(revocation_reason, '-')
            FROM iap.deliveries WHERE transaction_id = $1
            """,
            [id]
        )
    }

    @Test func aProratedRefundAfterDeliveryRevokesItsShareOnceAndAFullRefundTheRest() async throws {
        try await Fixture.with { f in
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")
            try await f.withDaemons { _ in
                try await deliver(f, "8501", quantity: 5, order: "five")
                try await deliver(f, "8502", quantity: 1, order: "one")
                #expect(try await f.value("SELECT iap.mark_granted('five')") == "1")
                #expect(try await f.value("SELECT iap.mark_granted('one')") == "1")

                try await f.expectProcessed(try await refund(f, "8501", quantity: 5, percentage: 40_000), "revoked")
                try await f.expectProcessed(try await refund(f, "8502", quantity: 1, percentage: 40_000), "revoked")
            }
            // 40% of 5 units is 2 whole units; of 1 unit, none, and still the share is handed over.
            #expect(try await ledger(f, "8501") == "false:2:40000:refund_prorated")
            #expect(try await ledger(f, "8502") == "false:0:40000:refund_prorated")
            #expect(try await owed(f) == "8501:2:40000:refund_prorated,8502:0:40000:refund_prorated")
            let shown = try ReceiptdBinary.run(["show", "five", "--database-url", f.database.connectionString])
            #expect(shown.stdout.contains("refund_prorated") && shown.stdout.contains("40%"), "\(shown.stdout)")
            let timeline = try await OperatorQueries(connection: f.connection).timeline(orderID: "one")
            #expect(
                timeline.events.flatMap(\.fields).contains {
                    $0.name == "revoked share" && $0.value == "40.0 % (0 unit(s))"
                }
            )
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 1_000) }
            #expect(Set(notes.filter { $0.channel == "iap_revoked" }.map(\.payload)).count == 2)
            // Still delivered, granted, and the order untouched.
            #expect(try await f.order("five")["delivered_quantity"] == "5")
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['8501', '8502'])") == "2")
            #expect(try await owed(f) == nil)
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['8501', '8502'])") == "0")

            try await f.withDaemons { _ in
                // A smaller share again changes nothing; a larger one hands over the difference; a full refund the rest.
                try await f.expectProcessed(try await refund(f, "8502", quantity: 1, percentage: 30_000), "revoked")
                try await f.expectProcessed(try await refund(f, "8502", quantity: 1, percentage: 70_000), "revoked")
                try await f.expectProcessed(try await refund(f, "8501", quantity: 5, percentage: nil), "revoked")
            }
            #expect(try await ledger(f, "8502") == "false:0:70000:refund_prorated")
            // Revoked whole: all 5 units are revoked, whatever share went before (issue 47); 3 are owed.
            #expect(try await ledger(f, "8501") == "true:5:-:refund_other")
            #expect(try await owed(f) == "8501:3:60000:refund_other,8502:0:30000:refund_prorated")
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['8501', '8502'])") == "2")
            #expect(try await owed(f) == nil)
            await listener.close()
        }
    }

    @Test func aPurchaseRefundedInPartBeforeDeliveryStillDeliversWithThatShareRevoked() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in
                // Apple tells of the refund before the client's transaction reaches the game.
                try await f.expectProcessed(
                    try await refund(f, "8601", quantity: 5, percentage: 40_000),
                    "revoked_undelivered"
                )
                try await deliver(f, "8601", quantity: 5, order: "late")
            }
            let order = try await f.order("late")
            #expect(order["outcome"] == "full" && order["delivered_quantity"] == "5", "\(order)")
            #expect(try await ledger(f, "8601") == "false:2:40000:refund_prorated")
            #expect(try await owed(f) == "8601:2:40000:refund_prorated")
            #expect(try await f.value("SELECT granted::text FROM iap.owed_revocations('alice')") == "false")
        }
    }
}

import Foundation
import ReceiptdCore
import Testing

extension RevocationHandOffTests {
    /// Google's quantity-based partial refund as the processing writes it: `units` more units of the row revoked.
    static func revokeUnits(_ f: Fixture, _ transaction: String, units: Int) async throws {
        try await f.connection.execute(
            "UPDATE iap.deliveries SET revoked_quantity = revoked_quantity + $2 WHERE transaction_id = $1",
            [transaction, units]
        )
    }

    /// The `iap_revoked` notifications that arrive on `listener` within `milliseconds`, as transaction ids.
    static func revokedTransactions(
        _ listener: PostgresConnection,
        within milliseconds: Int32
    ) async throws
        -> [String]
    {
        let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: milliseconds) }
        return try notes.filter { $0.channel == "iap_revoked" }.map { note in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(note.payload.utf8)) as? [String: String]
            )
            return object["transaction_id"] ?? ""
        }
    }

    @Test func partialRefundsOweTheUnitsRevokedAndNotYetHandledUntilAFullRevocationOwesTheRest() async throws {
        try await Fixture.with { f in
            try await Self.deliver(f, order: "o1", transaction: "GPA.5", quantity: 5, granted: true)
            try await Self.deliver(f, order: "o2", transaction: "GPA.6", quantity: 2)
            try await f.connection.execute("UPDATE iap.deliveries SET store = 'google'")
            let owed = """
                SELECT string_agg(transaction_id || ':' || quantity || ':' || revoked_quantity || ':'
                                  || coalesce(revoked_at::text, '-') || ':' || granted, ',')
                FROM iap.owed_revocations('u1')
                """

            // Two of five units refunded: those two are owed, the row stands (not revoked, still delivered).
            try await Self.revokeUnits(f, "GPA.5", units: 2)
            #expect(try await f.value(owed) == "GPA.5:5:2:-:true")
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['GPA.5'])") == "1")
            #expect(try await f.value(owed) == nil)
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['GPA.5'])") == "0")
            #expect(
                try await f.value(
                    """
                    SELECT revocation_handled_quantity || ':' || coalesce(revocation_handled_at::text, '-')
                    FROM iap.deliveries WHERE transaction_id = 'GPA.5'
                    """
                ) == "2:-"
            )

            // One more: only the new unit is owed.
            try await Self.revokeUnits(f, "GPA.5", units: 1)
            #expect(try await f.value(owed) == "GPA.5:5:1:-:true")
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['GPA.5'])") == "1")

            // A full refund of the rest: revoked whole, the two units never handled are owed.
            try await Self.revoke(f, "GPA.5", reason: "voided")
            let full = try await f.connection.execute(
                "SELECT transaction_id, revoked_quantity, revoked_at IS NOT NULL AS revoked FROM iap.owed_revocations('u1')"
            ).namedRows
            #expect(full.map { $0["transaction_id"] } == ["GPA.5"])
            #expect(full.first?["revoked_quantity"] == "2" && full.first?["revoked"] == "t")
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['GPA.5'])") == "1")
            #expect(try await f.value(owed) == nil)
            #expect(
                try await f.value(
                    """
                    SELECT revocation_handled_quantity || ':' || (revocation_handled_at IS NOT NULL)
                    FROM iap.deliveries WHERE transaction_id = 'GPA.5'
                    """
                ) == "5:true"
            )
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['GPA.5'])") == "0")

            // The other row of the same user was never touched.
            #expect(
                try await f.value(
                    "SELECT revoked_quantity || ':' || revocation_handled_quantity FROM iap.deliveries WHERE transaction_id = 'GPA.6'"
                ) == "0:0"
            )
        }
    }

    @Test func unitsRevokedNotifyIapRevokedEachTimeTheyGrow() async throws {
        try await Fixture.with { f in
            try await Self.deliver(f, order: "o1", transaction: "GPA.7", user: "bob", quantity: 5, granted: true)
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")

            try await Self.revokeUnits(f, "GPA.7", units: 2)
            #expect(try await Self.revokedTransactions(listener, within: 2_000) == ["GPA.7"])

            // Handling them, or writing the same count again, revokes nothing more: no notification.
            try await f.connection.execute("SELECT iap.mark_revocation_handled(ARRAY['GPA.7'])")
            try await Self.revokeUnits(f, "GPA.7", units: 0)
            #expect(try await Self.revokedTransactions(listener, within: 500).isEmpty)

            try await Self.revokeUnits(f, "GPA.7", units: 1)
            #expect(try await Self.revokedTransactions(listener, within: 2_000) == ["GPA.7"])

            // The full revocation notifies once, even when it also sets the units to all of them.
            try await f.connection.execute(
                """
                UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'voided', revoked_quantity = quantity
                WHERE transaction_id = 'GPA.7'
                """
            )
            #expect(try await Self.revokedTransactions(listener, within: 2_000) == ["GPA.7"])
            #expect(try await Self.revokedTransactions(listener, within: 500).isEmpty)
            await listener.close()
        }
    }
}

import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Naming the player to Apple (issue 34): an operator's assignment of an App Store payment without an app account
/// token to an order that has one owes Set App Account Token, which the daemons make through the stand-in: taken,
/// retried after a 500, refused for good and shown by `receiptd show`.
@Suite struct AppAccountTokenTests {
    private static let token = UUID(uuidString: "5B6C7D8E-0000-4000-8000-0000000000AA")!

    /// An order with the player's token, and the App Store payment (an offer code redeemed in the App Store) that
    /// paid it without one, assigned to it by an operator through the CLI.
    private func assignTokenlessPayment(_ f: Fixture, transaction: String, original: String) async throws {
        try await f.connection.execute(
            "SELECT iap.create_order($1, 'u1', 'gems', 1, $2::uuid)",
            ["o-\(transaction)", Self.token.uuidString]
        )
        try await f.connection.execute(
            """
            INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment, original_transaction_id)
            VALUES ($1, 'gems', 1, 'Production', $2)
            """,
            [transaction, original]
        )
        let assigned = try ReceiptdBinary.run([
            "assign", transaction, "o-\(transaction)", "--database-url", f.database.connectionString,
        ])
        #expect(assigned.status == 0, "\(assigned.stderr)")
    }

    private func call(_ f: Fixture, _ transaction: String) async throws -> QueryResult.Row {
        try await f.row(
            """
            SELECT original_transaction_id, app_account_token::text AS token, state, attempts, last_error
            FROM iap.app_account_token_calls WHERE transaction_id = $1
            """,
            [transaction]
        )
    }

    private func waitForState(_ f: Fixture, _ transaction: String, _ state: String) async throws {
        try await f.waitUntil {
            try await f.value("SELECT state FROM iap.app_account_token_calls WHERE transaction_id = $1", [transaction])
                == state
        }
    }

    @Test func anAssignmentOwesAppleThePlayersTokenAndADaemonSetsIt() async throws {
        try await Fixture.with { f in
            try await assignTokenlessPayment(f, transaction: "9702", original: "9701")
            let owed = try await call(f, "9702")
            #expect(
                owed["original_transaction_id"] == "9701" && owed["token"] == Self.token.uuidString.lowercased()
                    && owed["state"] == "pending",
                "\(owed)"
            )
            try await f.withDaemons { _ in try await waitForState(f, "9702", "sent") }
            let calls = f.standIn.recordedAppAccountTokenRequests()
            #expect(calls.count == 1)
            #expect(
                calls.first?.originalTransactionID == "9701"
                    && calls.first?.appAccountToken == Self.token.uuidString.lowercased()
                    && calls.first?.environment == .production && calls.first?.bearerFailure == nil
            )
            #expect(try await call(f, "9702")["attempts"] == "1")
        }
    }

    @Test func aTransientFailureIsRetriedAndARefusalIsRecordedAndShown() async throws {
        try await Fixture.with { f in
            f.standIn.scriptAppAccountToken([ScriptStep(http: 500)])
            try await assignTokenlessPayment(f, transaction: "9712", original: "9711")
            try await f.withDaemons { _ in try await waitForState(f, "9712", "sent") }
            #expect(f.standIn.recordedAppAccountTokenRequests().map(\.httpStatus) == [500, 200])
            let retried = try await call(f, "9712")
            #expect(retried["attempts"] == "2" && retried["last_error"] == nil, "\(retried)")

            // A family-shared purchase: Apple refuses for good.
            f.standIn.scriptAppAccountToken([ScriptStep(http: 400, errorCode: 4_000_185)])
            try await assignTokenlessPayment(f, transaction: "9722", original: "9721")
            try await f.withDaemons { _ in try await waitForState(f, "9722", "failed") }
            let refused = try await call(f, "9722")
            #expect(refused["attempts"] == "1" && refused["last_error"]?.contains("4000185") == true, "\(refused)")
            let shown = try ReceiptdBinary.run(["show", "o-9722", "--database-url", f.database.connectionString])
            #expect(
                shown.stdout.contains("App account token (Set App Account Token):")
                    && shown.stdout.contains("failed") && shown.stdout.contains("4000185"),
                "\(shown.stdout)"
            )
        }
    }

    @Test func nothingIsOwedWhenThePaymentHasATokenOrTheOrderHasNone() async throws {
        try await Fixture.with { f in
            // The order has no token.
            try await f.connection.execute("SELECT iap.create_order('o-plain', 'u1', 'gems')")
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment, original_transaction_id,
                                                    app_account_token)
                VALUES ('9731', 'gems', 1, 'Production', '9731', NULL),
                       ('9732', 'gems', 1, 'Production', '9732', $1::uuid)
                """,
                [Self.token.uuidString]
            )
            try await f.connection.execute("SELECT iap.assign_payment('9731', 'o-plain')")
            // The payment already carries the token.
            try await f.connection.execute(
                "SELECT iap.create_order('o-token', 'u1', 'gems', 1, $1::uuid)",
                [Self.token.uuidString]
            )
            try await f.connection.execute("SELECT iap.assign_payment('9732', 'o-token')")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "2")
            #expect(try await f.value("SELECT count(*) FROM iap.app_account_token_calls") == "0")
        }
    }
}

import Foundation
import ReceiptdCore
import Testing

/// The refund requests page and its answer form, and the player's refund requests.
extension ConsolePagesTests {
    /// A waiting Apple request about `user`'s transaction `transactionID`, due in 11 hours; returns its id.
    static func waitingRefundRequest(_ f: Fixture, _ transactionID: String, user: String) async throws -> String {
        try #require(
            try await f.value(
                """
                WITH n AS (
                    INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                        environment, signed_at, source, payload, processed_at, result)
                    VALUES ('apple', gen_random_uuid()::text, 'CONSUMPTION_REQUEST', $1, 'Production', now(), 'push',
                            '{}', now(), 'consumption_requested')
                    RETURNING id, notification_id, signed_at
                )
                INSERT INTO iap.refund_requests (notification_id, request_id, transaction_id, environment, user_id,
                    reason, signed_at, answer_by)
                SELECT id, notification_id, $1::text, 'Production', $2::text, 'UNINTENDED_PURCHASE', signed_at,
                       signed_at + interval '11 hours'
                FROM n RETURNING request_id
                """,
                [transactionID, user]
            )
        )
    }

    @Test func anOperatorAnswersARefundRequestOnItsPageAndItIsAudited() async throws {
        try await Fixture.with { f in
            let id = try await Self.waitingRefundRequest(f, "7701", user: "pia")
            try await Self.withConsole(f) { browser in
                let list = try await browser.get("/refunds")
                #expect(list.status == .ok && list.body.contains("<table id=\"refund-requests\">"))
                #expect(
                    list.body.contains("data-request-id=\"\(id)\"") && list.body.contains("class=\"answer-refund\"")
                )
                #expect(list.body.contains("href=\"/refunds\" aria-current=\"page\""))

                let answered = try await browser.post(
                    "/actions/answer-refund",
                    [("request_id", id), ("preference", "grant_prorated"), ("consumed", "25000")]
                )
                #expect(answered.status == .seeOther)
                #expect(answered.location?.hasPrefix("/refunds?flash=answered") == true, "\(answered.location ?? "")")
                let row = try await f.row(
                    "SELECT state, answered_by, preference, consumed_milliunits FROM iap.refund_requests"
                )
                #expect(row["state"] == "answering" && row["answered_by"] == "operator")
                #expect(row["preference"] == "grant_prorated" && row["consumed_milliunits"] == "25000")
                #expect(try await Self.audit(f, "answer_refund").first?.hasPrefix("agent|\(id)|grant_prorated") == true)

                // Answered already: refused, said so, and recorded as refused; no form any more.
                let again = try await browser.post(
                    "/actions/answer-refund",
                    [("request_id", id), ("preference", "decline"), ("consumed", "")]
                )
                #expect(again.location?.hasPrefix("/refunds?flash=refused") == true, "\(again.location ?? "")")
                #expect(try await Self.audit(f, "answer_refund").last?.hasPrefix("agent|\(id)|refused: ") == true)
                let after = try await browser.get("/refunds?state=answering")
                #expect(
                    after.body.contains("data-request-id=\"\(id)\"") && !after.body.contains("class=\"answer-refund\"")
                )
                #expect(try await browser.get("/refunds?state=waiting").body.contains("No refund requests."))

                // The player page lists it too.
                let player = try await browser.get("/player?id=pia")
                #expect(player.body.contains("<table id=\"refund-requests\">") && player.body.contains(id))
            }
        }
    }

    @Test func aViewerSeesRefundRequestsButCannotAnswerThem() async throws {
        try await Fixture.with { f in
            let id = try await Self.waitingRefundRequest(f, "7702", user: "pia")
            try await Self.withConsole(f, role: .viewer) { browser in
                let list = try await browser.get("/refunds")
                #expect(list.body.contains("data-request-id=\"\(id)\"") && !list.body.contains("/actions/"))
                let refused = try await browser.post(
                    "/actions/answer-refund",
                    [("request_id", id), ("preference", "decline")]
                )
                #expect(refused.status == .forbidden)
                #expect(try await f.value("SELECT state FROM iap.refund_requests") == "waiting")
            }
        }
    }
}

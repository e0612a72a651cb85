import Foundation
import ReceiptdCore
import Testing

/// The refund requests page and its answer form, and the player's refund requests.
extension ConsolePagesTests {
    @Test func anOperatorAnswersARefundRequestOnItsPageAndItIsAudited() async throws {
        try await Fixture.with { f in
            let id = try await f.askRefund("7701", user: "pia", dueIn: .seconds(11 * 3600))
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
            let id = try await f.askRefund("7702", user: "pia")
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

import Foundation
import ReceiptdConsole
import ReceiptdCore
import Testing

/// The console's page builders write every value escaped: a store error, an id or a user name holding markup
/// shows as text, and links carry their values percent-encoded.
@Suite struct ConsolePageRenderingTests {
    static let hostile = "\"><script>alert(1)</script><img src=x onerror=alert(2)>"
    static let session = ConsoleSession(
        token: "t",
        user: hostile,
        role: .operator,
        csrfToken: "c",
        expiresAt: Date(timeIntervalSinceNow: 3600)
    )

    /// The whole document of `page` holds the hostile text only escaped.
    static func expectEscaped(_ page: ConsolePage, query: String = "", _ comment: Comment? = nil) {
        let document = ConsoleLayout.document(page, session: session, query: query).rendered
        #expect(!document.contains("<script>alert"), comment)
        #expect(!document.contains("<img src=x"), comment)
        #expect(document.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), comment)
    }

    /// An order whose every text field is hostile, as the timeline reads it.
    static func hostileTimeline() throws -> OrderTimeline {
        let h = hostile
        let object: [String: Any] = [
            "status": h,
            "grantedAt": [h: "2026-11-23T00:00:03Z"],
            "actions": [
                [
                    "at": "2026-11-23T00:00:05Z", "actor": h, "action": "retry", "target": h, "result": "refused: \(h)",
                    "sessionUser": h,
                ]
            ],
            "detail": [
                "order": [
                    "orderID": h, "userID": h, "productID": h, "quantity": 1, "deliveredQuantity": 1, "outcome": h,
                    "createdAt": "2026-11-23T00:00:00Z",
                ],
                "jobs": [
                    [
                        "id": 1, "kind": "receipt", "state": "failed", "attempts": 1,
                        "createdAt": "2026-11-23T00:00:01Z",
                        "runAt": "2026-11-23T00:00:01Z", "lastError": h, "lockedBy": h,
                        "attemptLog": [
                            [
                                "attempt": 1, "result": "retry", "appleStatus": 21005, "httpStatus": 503,
                                "durationMs": 5,
                                "errorClass": h, "error": h, "daemon": h, "finishedAt": "2026-11-23T00:00:02Z",
                            ]
                        ],
                    ]
                ],
                "deliveries": [
                    [
                        "transactionID": h, "quantity": 1, "deliveredAt": "2026-11-23T00:00:02Z", "environment": h,
                        "revokedAt": "2026-11-23T00:00:04Z", "revocationReason": h, "revokedQuantity": 1,
                        "revocationHandledQuantity": 0,
                    ]
                ],
                "notifications": [
                    [
                        "receivedAt": "2026-11-23T00:00:04Z", "store": h, "notificationID": h, "type": h, "subtype": h,
                        "transactionID": h, "source": h, "result": h, "error": h,
                    ]
                ],
                "webhookEvents": [
                    [
                        "id": h, "type": h, "state": "failed", "attempts": 3, "lastError": h,
                        "createdAt": "2026-11-23T00:00:04Z", "payload": ["x": h],
                    ]
                ],
                "appAccountTokenCalls": [[String: Any]](),
                "subscriptions": [[String: Any]](),
            ],
        ]
        return try JSONDecoder().decode(OrderTimeline.self, from: JSONSerialization.data(withJSONObject: object))
    }

    @Test func theOrderPageEscapesEveryStoreTextAndListsTheTimelineOldestFirst() throws {
        let timeline = try Self.hostileTimeline()
        let page = OrderPage.page(timeline, session: Self.session, flash: Self.hostile)
        Self.expectEscaped(page)
        let kinds = timeline.events.map(\.kind)
        #expect(kinds.first == .checkout && kinds.last == .action)
        #expect(Set(kinds) == Set(TimelineEventKind.allCases))
        #expect(timeline.events.map(\.at) == timeline.events.map(\.at).sorted())
        // The forms carry the order id escaped in their hidden field.
        #expect(page.body.rendered.contains("value=\"\(HTML.escape(Self.hostile))\""))
    }

    @Test func theSearchPageEscapesTheQueryAndTheHits() {
        let h = Self.hostile
        Self.expectEscaped(SearchPage.page(query: h, hits: []), query: h)
        let hits = [
            SearchHit(kind: .player, id: h, matched: "user id", userID: h),
            SearchHit(kind: .order, id: h, matched: "order id", userID: h, productID: h, outcome: h),
            SearchHit(kind: .unclaimedPayment, id: h, matched: "purchase token", productID: h),
        ]
        let page = SearchPage.page(query: h, hits: hits)
        Self.expectEscaped(page, query: h)
        #expect(page.body.rendered.contains("href=\"/player?id=%22%3E%3Cscript%3Ealert%281%29"))
    }

    @Test func viewersGetNoActionForms() throws {
        var viewer = Self.session
        viewer.role = .viewer
        let page = OrderPage.page(try Self.hostileTimeline(), session: viewer)
        #expect(!page.body.rendered.contains("<form") && !page.body.rendered.contains("/actions/"))
    }

    @Test func linksPercentEncodeEveryReservedCharacter() {
        #expect(ConsoleLinks.encode("a b&c=d+e#f%g/ü") == "a%20b%26c%3Dd%2Be%23f%25g%2F%C3%BC")
        #expect(ConsoleLinks.encode("Az09-._~") == "Az09-._~")
        #expect(ConsoleLinks.order("o 1", flash: "refused: x&y") == "/order?id=o%201&flash=refused%3A%20x%26y")
        #expect(ConsoleForm(encoded: "id=" + ConsoleLinks.encode(Self.hostile))["id"] == Self.hostile)
    }
}

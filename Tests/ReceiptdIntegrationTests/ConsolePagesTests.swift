import AsyncHTTPClient
import FakeAppStore
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ReceiptdConsole
import ReceiptdCore
import ServiceLifecycle
import Testing

/// The console's pages and actions over real HTTP, on a real database through the `receiptd_operator` role, with a
/// session started directly (sign-in is tested on its own): search, the player and order pages, the lists, the
/// actions and their audit rows, escaping, and the 404 and 503 answers.
@Suite struct ConsolePagesTests {
    /// One answer: status, `Location`, body.
    struct Answer {
        var status: HTTPResponseStatus
        var location: String?
        var body: String
    }

    /// A browser without redirects, holding one session's cookie and CSRF token.
    struct Browser {
        let client: HTTPClient
        let base: String
        let session: ConsoleSession

        func get(_ path: String) async throws -> Answer {
            var request = HTTPClientRequest(url: base + path)
            request.headers.add(name: "Cookie", value: "\(ConsoleAuthentication.cookieName)=\(session.token)")
            return try await send(request)
        }

        /// A form `POST` with the session's CSRF token (unless `csrf` is false).
        func post(_ path: String, _ fields: [(String, String)], csrf: Bool = true) async throws -> Answer {
            var request = HTTPClientRequest(url: base + path)
            request.method = .POST
            request.headers.add(name: "Cookie", value: "\(ConsoleAuthentication.cookieName)=\(session.token)")
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let all = (csrf ? [("csrf", session.csrfToken)] : []) + fields
            request.body = .bytes(
                ByteBuffer(
                    string: all.map { "\(ConsoleLinks.encode($0))=\(ConsoleLinks.encode($1))" }.joined(separator: "&")
                )
            )
            return try await send(request)
        }

        /// Follows an action's 303 to the page it names.
        func follow(_ answer: Answer) async throws -> Answer {
            try await get(try #require(answer.location, "no Location in a \(answer.status)"))
        }

        private func send(_ request: HTTPClientRequest) async throws -> Answer {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 4 << 20)
            return Answer(
                status: response.status,
                location: response.headers.first(name: "Location"),
                body: String(buffer: body)
            )
        }
    }

    /// Runs a console on port 0 over `f`'s database as a `receiptd_operator` login (or `connectionString`), with a
    /// session of `agent` in `role`, while `body` runs.
    static func withConsole(
        _ f: Fixture,
        role: ConsoleRole = .operator,
        connectionString: String? = nil,
        _ body: (Browser) async throws -> Void
    ) async throws {
        let url: String
        if let connectionString { url = connectionString } else { url = try await f.loginRole(in: "receiptd_operator") }
        try await ConsoleTestServer.with(connectionString: url, users: [], settings: { $0.insecureCookies = true }) {
            console in
            let session = await console.server.authentication.startSession(
                for: ConsoleUser(name: "agent", passwordHash: "x", role: role)
            )
            try await body(Browser(client: console.client, base: console.base, session: session))
        }
    }

    /// The audit rows of `action`, oldest first, as `actor|target|result|session_user`.
    static func audit(_ f: Fixture, _ action: String) async throws -> [String] {
        try await f.connection.execute(
            """
            SELECT a.actor || '|' || a.target || '|' || a.result || '|' || a.session_user AS line
            FROM iap.operator_actions a WHERE a.action = $1 ORDER BY a.id
            """,
            [action]
        ).rows.compactMap { $0.first ?? nil }
    }

    @Test func searchRedirectsToWhatItFindsAndListsSeveral() async throws {
        try await Fixture.with { f in
            try await ConsoleQueriesTests.seedSearchable(f)
            try await f.enqueue("u2", user: "u9", receipt: Receipts.paying("7"))
            try await Self.withConsole(f) { browser in
                let player = try await browser.get("/search?q=u1")
                #expect(player.status == .seeOther && player.location == "/player?id=u1")
                #expect(try await browser.get("/search?q=o1").location == "/order?id=o1")
                #expect(try await browser.get("/search?q=1000000001").location == "/order?id=o1")
                #expect(try await browser.get("/search?q=tok-g1").location == "/order?id=g1")
                #expect(try await browser.get("/search?q=+tok-fin+").location == "/order?id=g1")
                #expect(
                    try await browser.get("/search?q=tok-lost").location
                        == "/unclaimed?state=all&transaction_id=GPA.lost"
                )
                let none = try await browser.get("/search?q=%3Cb%3Enothing")
                #expect(none.status == .ok && none.body.contains("id=\"no-results\""))
                #expect(none.body.contains("&lt;b&gt;nothing") && !none.body.contains("<b>nothing"))
                let several = try await browser.get("/search?q=u2")
                #expect(several.status == .ok && several.body.contains("id=\"results\""))
                #expect(
                    several.body.contains("href=\"/player?id=u2\"") && several.body.contains("href=\"/order?id=u2\"")
                )
            }
        }
    }

    @Test func playerPageListsOrdersAndItsSections() async throws {
        try await Fixture.with { f in
            try await ConsoleQueriesTests.seedSearchable(f)
            try await Self.withConsole(f) { browser in
                let page = try await browser.get("/player?id=u1")
                #expect(page.status == .ok)
                #expect(page.body.contains("<tr data-order-id=\"o1\">") && page.body.contains("href=\"/order?id=o1\""))
                for id in ["orders", "owed-deliveries", "owed-revocations", "trust", "unclaimed", "suspicious"] {
                    #expect(page.body.contains("id=\"\(id)\""), "no #\(id)")
                }
                #expect(page.body.contains("data-transaction-id=\"1000000001\""))
                #expect(page.body.contains("data-transaction-id=\"tx-lost\""))
            }
        }
    }

    @Test func orderPageShowsTheTimelineInTimeOrderEscapingStoreText() async throws {
        try await Fixture.with { f in
            let hostile = "<script>alert(1)</script>"
            let job = try await f.enqueue("o1", receipt: Receipts.paying("1000000001"))
            try await f.addAttempt(
                job: job,
                number: 1,
                result: "retry",
                errorClass: "http",
                appleStatus: 21005,
                httpStatus: 503,
                error: hostile,
                secondsAgo: 30
            )
            try await f.setJob(job, state: "succeeded", error: hostile)
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, job_id)
                VALUES ('1000000001', 'o1', 'u1', 'gems', 1, $1)
                """,
                [job]
            )
            try await f.setOutcome("o1", "full")
            try await f.script("UPDATE iap.orders SET created_at = now() - interval '1 minute', status = 'verified'")
            try await Self.withConsole(f) { browser in
                let page = try await browser.get("/order?id=o1")
                #expect(page.status == .ok)
                #expect(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !page.body.contains(hostile))
                #expect(page.body.contains("<dd id=\"order-status\">verified</dd>"))
                #expect(page.body.contains("<dd id=\"order-outcome\">full</dd>"))
                #expect(page.body.contains("<ol id=\"timeline\""))
                let items = Self.timeline(page.body)
                #expect(items.map(\.kind).first == "checkout")
                #expect(items.map(\.time) == items.map(\.time).sorted())
                #expect(Set(items.map(\.kind)).isSuperset(of: ["checkout", "job", "attempt", "delivery"]))
                let attempt = try #require(items.first { $0.kind == "attempt" })
                #expect(
                    attempt.html.contains("21005") && attempt.html.contains("503")
                        && attempt.html.contains("&lt;script&gt;")
                )
                let delivery = try #require(items.first { $0.kind == "delivery" })
                #expect(delivery.html.contains("1000000001"))
                #expect(page.body.contains("id=\"retry\"") && page.body.contains("id=\"cancel\""))

                let missing = try await browser.get("/order?id=nope")
                #expect(missing.status == .notFound && missing.body.contains("id=\"not-found\""))
            }
        }
    }

    @Test func idsWithAnyCharacterRoundTripThroughLinksAndPages() async throws {
        try await Fixture.with { f in
            let odd = "a&b=c <\"x\"> #1+2 %41 ü"
            let oddUser = "user " + odd
            try await f.enqueue(odd, user: oddUser, receipt: Receipts.paying("1"))
            try await Self.withConsole(f) { browser in
                let found = try await browser.get("/search?q=" + ConsoleLinks.encode(odd))
                #expect(found.status == .seeOther && found.location == ConsoleLinks.order(odd))
                let order = try await browser.get(try #require(found.location))
                #expect(order.status == .ok && order.body.contains(HTML.escape(odd)) && !order.body.contains("<\"x\">"))
                #expect(order.body.contains("href=\"\(HTML.escape(ConsoleLinks.player(oddUser)))\""))
                let player = try await browser.get(ConsoleLinks.player(oddUser))
                #expect(
                    player.status == .ok && player.body.contains("href=\"\(HTML.escape(ConsoleLinks.order(odd)))\"")
                )
                let cancelled = try await browser.post("/actions/cancel", [("order_id", odd)])
                #expect(cancelled.status == .seeOther)
                #expect(cancelled.location?.hasPrefix(ConsoleLinks.order(odd) + "&flash=cancelled") == true)
            }
        }
    }

    @Test func assigningAnUnclaimedPaymentVerifiesTheOrderAndIsAudited() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('o1', 'u1', 'gems')")
            try await f.enqueue(
                "o1",
                receipt: SyntheticReceipt(inApp: [Receipts.purchase("91", product: "shield")]).encoded()
            )
            try await f.withDaemons(settings: f.settings { $0.daemon.unclaimedSince = Date(timeIntervalSince1970: 0) })
            { _ in
                try await f.waitUntilSettled()
            }
            try await f.connection.execute("SELECT iap.create_order('lost', 'u1', 'shield')")
            let login = try await f.loginRole(in: "receiptd_operator")
            try await Self.withConsole(f, connectionString: login) { browser in
                let list = try await browser.get("/unclaimed")
                #expect(
                    list.body.contains("<table id=\"unclaimed\">") && list.body.contains("data-transaction-id=\"91\"")
                )
                #expect(list.body.contains("class=\"assign\"") && list.body.contains("name=\"order_id\""))

                let assigned = try await browser.post(
                    "/actions/assign",
                    [("transaction_id", "91"), ("order_id", "lost")]
                )
                #expect(assigned.status == .seeOther)
                #expect(
                    assigned.location?.hasPrefix("/order?id=lost&flash=assigned") == true,
                    "\(assigned.location ?? "")"
                )
                let page = try await browser.follow(assigned)
                #expect(page.body.contains("<dd id=\"order-outcome\">full</dd>") && page.body.contains("id=\"flash\""))
                #expect(
                    try await f.value(
                        "SELECT status::text || '/' || outcome::text FROM iap.orders WHERE order_id = 'lost'"
                    )
                        == "verified/full"
                )
                let user = String(
                    try #require(login.split(separator: " ").first { $0.hasPrefix("user=") }).dropFirst(5)
                )
                #expect(try await Self.audit(f, "assign").count == 1)
                #expect(try await Self.audit(f, "assign").first?.hasPrefix("agent|91|") == true)
                #expect(try await Self.audit(f, "assign").first?.hasSuffix("|\(user)") == true)
                // The order shows who did it.
                #expect(page.body.contains("data-kind=\"action\"") && page.body.contains("assign by agent"))

                // Assigning it again is refused, said so, and recorded as refused.
                let again = try await browser.post("/actions/assign", [("transaction_id", "91"), ("order_id", "lost")])
                #expect(again.location?.hasPrefix("/order?id=lost&flash=refused") == true, "\(again.location ?? "")")
                let refusedPage = try await browser.follow(again)
                #expect(refusedPage.body.contains("id=\"flash\"") && refusedPage.body.contains("refused: "))
                let rows = try await Self.audit(f, "assign")
                #expect(rows.count == 2 && rows.last?.hasPrefix("agent|91|refused: ") == true)

                // A flash message carries its session's check: a link made elsewhere, or with the check of
                // another message, shows no message at all.
                let location = try #require(again.location)
                let check = try #require(location.range(of: "&check=")).upperBound
                let planted = "/order?id=lost&flash=refused%3A%20wire%20the%20refund%20to%20mallory"
                let forged = try await browser.get("\(planted)&check=\(location[check...])")
                #expect(forged.status == .ok && !forged.body.contains("id=\"flash\""))
                #expect(!forged.body.contains("mallory"))
                let unchecked = try await browser.get(planted)
                #expect(!unchecked.body.contains("id=\"flash\"") && !unchecked.body.contains("mallory"))
            }
        }
    }

    @Test func retryCancelAndReplayActAndAreAudited() async throws {
        try await Fixture.with { f in
            let failed = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(failed, state: "failed", error: "no")
            let lapsed = try await f.enqueue("o2", receipt: Receipts.paying("2"))
            try await f.setJob(lapsed, state: "running", secondsAgo: 120)
            try await WebhookCommandTests.insert(f, "msg_failed1", state: "failed", attempts: 12, lastStatus: 500)
            try await Self.withConsole(f) { browser in
                let stuck = try await browser.get("/stuck")
                #expect(stuck.body.contains("<table id=\"stuck\">") && stuck.body.contains("<tr data-order-id=\"o2\">"))
                #expect(stuck.body.contains("class=\"retry\"") && stuck.body.contains("class=\"cancel\""))

                let retried = try await browser.post("/actions/retry", [("order_id", "o1")])
                #expect(retried.location?.hasPrefix("/order?id=o1&flash=retried") == true, "\(retried.location ?? "")")
                #expect(
                    try await f.value("SELECT count(*) FROM iap.jobs WHERE order_id = 'o1' AND state = 'pending'")
                        == "1"
                )
                #expect(try await Self.audit(f, "retry").first?.hasPrefix("agent|o1|") == true)

                let cancelled = try await browser.post("/actions/cancel", [("order_id", "o2")])
                #expect(cancelled.location?.hasPrefix("/order?id=o2&flash=cancelled") == true)
                #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [lapsed]) == "cancelled")
                let refused = try await browser.post("/actions/cancel", [("order_id", "o2")])
                #expect(refused.location?.hasPrefix("/order?id=o2&flash=refused") == true)
                let cancels = try await Self.audit(f, "cancel")
                #expect(cancels.count == 2 && cancels.last?.hasPrefix("agent|o2|refused: ") == true)

                let webhooks = try await browser.get("/webhooks")
                #expect(
                    webhooks.body.contains("<tr data-event-id=\"msg_failed1\">")
                        && webhooks.body.contains("class=\"replay\"")
                )
                let replayed = try await browser.post("/actions/replay", [("event_id", "msg_failed1")])
                #expect(replayed.location?.hasPrefix("/webhooks?flash=replayed") == true, "\(replayed.location ?? "")")
                #expect(try await f.value("SELECT state FROM iap.webhook_events WHERE id = 'msg_failed1'") == "pending")
                #expect(try await Self.audit(f, "replay_webhook").first?.hasPrefix("agent|msg_failed1|") == true)

                // Without the CSRF token nothing happens.
                let forged = try await browser.post("/actions/retry", [("order_id", "o2")], csrf: false)
                #expect(forged.status == .forbidden)
                #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE order_id = 'o2'") == "1")
            }
        }
    }

    @Test func viewersSeeNoActionFormsAndCannotAct() async throws {
        try await Fixture.with { f in
            let failed = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(failed, state: "failed")
            try await Self.withConsole(f, role: .viewer) { browser in
                let page = try await browser.get("/order?id=o1")
                #expect(page.status == .ok && !page.body.contains("id=\"retry\"") && !page.body.contains("/actions/"))
                let refused = try await browser.post("/actions/retry", [("order_id", "o1")])
                #expect(refused.status == .forbidden)
                #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE order_id = 'o1'") == "1")
            }
        }
    }

    @Test func overviewHasFiguresAndChartsAndTheirJSON() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setOutcome("o1", "full", secondsAgo: 60)
            try await Self.withConsole(f) { browser in
                let page = try await browser.get("/")
                #expect(page.status == .ok)
                for id in ["figures", "chart-settled", "chart-retries"] {
                    #expect(page.body.contains("id=\"\(id)\""), "no #\(id)")
                }
                let json = try await browser.get("/overview.json")
                let document = try JSONDecoder().decode(OverviewPage.Document.self, from: Data(json.body.utf8))
                #expect(document.figures.contains { $0.key == "jobs-pending" && $0.value == 1 })
                #expect(document.series.settled.map(\.outcome) == ["full"])
                for path in ["/notifications", "/webhooks", "/stuck", "/unclaimed"] {
                    #expect(try await browser.get(path).status == .ok, "\(path)")
                }
            }
        }
    }

    @Test func aDatabaseThatDoesNotAnswerIsA503WithoutDetails() async throws {
        try await Fixture.with { f in
            let unreachable = "host=127.0.0.1 port=1 dbname=nope user=nobody password=hunter2-secret connect_timeout=2"
            try await Self.withConsole(f, connectionString: unreachable) { browser in
                let page = try await browser.get("/order?id=o1")
                #expect(page.status == .serviceUnavailable && page.body.contains("the database is not answering"))
                #expect(!page.body.contains("hunter2") && !page.body.contains("port=1"))
            }
        }
    }

    /// The timeline's items: kind, `datetime`, and the item's markup.
    static func timeline(_ body: String) -> [(kind: String, time: String, html: String)] {
        guard let start = body.range(of: "<ol id=\"timeline\""),
            let end = body.range(of: "</ol>", range: start.upperBound..<body.endIndex)
        else { return [] }
        let list = body[start.upperBound..<end.lowerBound]
        return list.components(separatedBy: "<li data-kind=\"").dropFirst().map { item in
            let kind = String(item.prefix { $0 != "\"" })
            let time = item.range(of: "datetime=\"").map { String(item[$0.upperBound...].prefix { $0 != "\"" }) } ?? ""
            return (kind, time, item)
        }
    }
}

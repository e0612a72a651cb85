import Foundation
import ReceiptdConsole
import ReceiptdTestKit
import Testing

/// The support console in a real browser (Debian's headless chromium over WebDriver), against a real
/// `ConsoleServer` on a seeded database: what issue #23's "Done means" lists. Screenshots of the overview and of an
/// order page go to `.build/test-artifacts/console/`.
@Suite(.serialized, .enabled(if: BrowserAvailability.shouldRun, BrowserAvailability.skipped))
struct ConsoleBrowserTests {
    @Test func agentSignsInSearchesAPlayerAndReadsAnOrdersAttemptsAndLedgerRows() async throws {
        try await ConsoleBrowser.with { console in
            let session = console.session
            // Signed out, every page leads to the sign-in form.
            try await console.open("/")
            try await session.waitForURL { $0.path == "/signin" }
            try await console.signIn(ConsoleBrowser.agent)
            #expect(try await console.text("#user") == ConsoleBrowser.agent.name)
            _ = try await session.waitForElement(css: "#figures")
            _ = try await session.waitForElement(css: "#chart-settled")
            _ = try await session.waitForElement(css: "#chart-retries")

            // The session cookie: HttpOnly (no script reads it), SameSite=Strict, not Secure on plain http here.
            let cookie = try #require(try await console.sessionCookie(), "no session cookie after sign-in")
            #expect(cookie.httpOnly == true && cookie.sameSite == "Strict" && cookie.secure == false)
            let scriptCookies: String = try await session.executeScript("return document.cookie")
            #expect(!scriptCookies.contains(ConsoleAuthentication.cookieName))
            try await expectScreenshot(console, "overview")

            // The header's search box finds the player by user id.
            try await session.findElement(css: "#q").sendKeys(ConsoleBrowser.player)
            try await console.click("#search button[type=submit]", landingAt: "/player")
            #expect(try await console.queryValue("id") == ConsoleBrowser.player)
            for order in [ConsoleBrowser.paidOrder, ConsoleBrowser.lostOrder, ConsoleBrowser.shieldOrder] {
                #expect(try await session.findElements(css: "#orders tr[data-order-id=\"\(order)\"]").count == 1)
            }
            _ = try await session.findElement(css: "#unclaimed")

            // The paid order's timeline: its attempt and its ledger row, each with its time.
            try await console.click("#orders tr[data-order-id=\"\(ConsoleBrowser.paidOrder)\"] a", landingAt: "/order")
            #expect(try await console.queryValue("id") == ConsoleBrowser.paidOrder)
            #expect(try await console.text("#order-status").contains("verified"))
            #expect(try await console.text("#order-outcome").contains("full"))
            let attempts = try await session.findElements(css: "#timeline li[data-kind=\"attempt\"]")
            #expect(attempts.count == 1)
            let deliveries = try await session.findElements(css: "#timeline li[data-kind=\"delivery\"]")
            #expect(deliveries.count == 1)
            #expect(try await deliveries.first?.text().contains(ConsoleBrowser.paidTransaction) == true)
            // Each event with its time, oldest first.
            let times: [Double?] = try await session.executeScript(
                """
                return [...document.querySelectorAll('#timeline li[data-kind]')]
                    .map(li => li.querySelector('time[datetime]'))
                    .map(time => time ? Date.parse(time.getAttribute('datetime')) : null)
                """
            )
            let parsed = times.compactMap { $0 }
            #expect(times.count >= 3 && parsed.count == times.count && parsed == parsed.sorted(), "\(times)")
            try await expectScreenshot(console, "order")
        }
    }

    @Test func agentAssignsAnUnclaimedPaymentAndTheOrderBecomesVerified() async throws {
        try await ConsoleBrowser.with { console in
            let session = console.session
            try await console.signIn(ConsoleBrowser.agent)
            try await console.open("/unclaimed")
            let row = "#unclaimed tr[data-transaction-id=\"\(ConsoleBrowser.unclaimedTransaction)\"]"
            try await session.waitForElement(css: "\(row) input[name=\"order_id\"]").sendKeys(
                ConsoleBrowser.shieldOrder
            )
            try await console.click("\(row) .assign", landingAt: "/order")
            #expect(try await console.queryValue("id") == ConsoleBrowser.shieldOrder)
            #expect(try await console.text("#order-status").contains("verified"))
            #expect(try await console.text("#order-outcome").contains("full"))
            #expect(try await console.text("#flash").isEmpty == false)
            // The timeline shows who did it.
            let actions = try await session.findElements(css: "#timeline li[data-kind=\"action\"]")
            var actionText = ""
            for action in actions { actionText += try await action.text() + "\n" }
            #expect(actionText.contains("assign") && actionText.contains(ConsoleBrowser.agent.name), "\(actionText)")
            #expect(
                try await session.findElements(css: "#timeline li[data-kind=\"delivery\"]").count == 1,
                "the payment's ledger row"
            )

            // The database agrees, and the audit names the agent and the console's database login.
            let f = console.f
            #expect(
                try await f.value(
                    "SELECT status::text || '/' || outcome::text FROM iap.orders WHERE order_id = $1",
                    [ConsoleBrowser.shieldOrder]
                ) == "verified/full"
            )
            let audit = try await f.row(
                """
                SELECT a.actor, a.action, a.target, a.result, a.session_user, a.order_id FROM iap.operator_actions a
                WHERE a.action = 'assign'
                """
            )
            #expect(audit["actor"] == ConsoleBrowser.agent.name)
            #expect(audit["target"] == ConsoleBrowser.unclaimedTransaction)
            #expect(audit["order_id"] == ConsoleBrowser.shieldOrder)
            #expect(audit["result"]?.contains("full") == true)
            #expect(audit["session_user"] == console.databaseLogin)
        }
    }

    @Test func agentRetriesAStuckJob() async throws {
        try await ConsoleBrowser.with { console in
            let session = console.session
            let f = console.f
            let order = ConsoleBrowser.stuckOrder
            let jobs = "SELECT string_agg(state, ',' ORDER BY id) FROM iap.jobs WHERE order_id = $1"
            #expect(try await f.value(jobs, [order]) == "pending")
            try await console.signIn(ConsoleBrowser.agent)
            try await console.open("/stuck")
            let row = "#stuck tr[data-order-id=\"\(order)\"]"
            _ = try await session.waitForElement(css: "\(row) .retry")
            // The stuck job is still pending: it is cancelled first (the database refuses a second active job) ...
            try await console.click("\(row) .cancel", landingAt: "/order")
            #expect(try await console.queryValue("id") == order)
            #expect(try await f.value(jobs, [order]) == "cancelled")
            // ... and retried: a new job appears.
            try await console.click("#retry button, #retry [type=submit]", landingAt: "/order")
            #expect(try await console.text("#flash").contains("job"))
            #expect(try await f.value(jobs, [order]) == "cancelled,pending")
            let actions = try await session.findElements(css: "#timeline li[data-kind=\"action\"]")
            #expect(actions.count == 2)
            #expect(
                try await f.value(
                    "SELECT string_agg(action || ':' || actor, ',' ORDER BY id) FROM iap.operator_actions WHERE order_id = $1",
                    [order]
                ) == "cancel:agent,retry:agent"
            )
        }
    }

    @Test func aViewerSeesNoActionsAndItsPostIsRefused() async throws {
        try await ConsoleBrowser.with { console in
            let session = console.session
            let f = console.f
            try await console.signIn(ConsoleBrowser.watcher)
            #expect(try await console.text("#user").contains(ConsoleBrowser.watcher.name))
            try await console.open("/stuck")
            _ = try await session.waitForElement(css: "#stuck tr[data-order-id=\"\(ConsoleBrowser.stuckOrder)\"]")
            #expect(try await session.findElements(css: "#stuck .retry, #stuck .cancel").isEmpty)
            try await console.open("/unclaimed")
            _ = try await session.waitForElement(
                css: "#unclaimed tr[data-transaction-id=\"\(ConsoleBrowser.unclaimedTransaction)\"]"
            )
            #expect(
                try await session.findElements(css: "#unclaimed .assign, #unclaimed input[name=\"order_id\"]").isEmpty
            )
            try await console.open("/order?id=\(ConsoleBrowser.stuckOrder)")
            _ = try await session.waitForElement(css: "#order-status")
            #expect(try await session.findElements(css: "#retry, #cancel").isEmpty)
            #expect(try await session.findElements(css: "main form[method=\"post\"]").isEmpty)

            // The viewer's own browser posts with the viewer's valid token (from the sign-out form): 403.
            let status: Int = try await session.executeScript(
                """
                const body = new URLSearchParams({
                    csrf: document.querySelector('input[name="csrf"]').value, order_id: arguments[0] });
                return fetch('/actions/cancel', { method: 'POST', body, redirect: 'manual' }).then(r => r.status);
                """,
                arguments: [ConsoleBrowser.stuckOrder]
            )
            #expect(status == 403)
            // And so does the same request sent with the viewer's cookie from outside.
            let cookie = try #require(try await console.sessionCookie())
            let token: String = try await session.executeScript(
                "return document.querySelector('input[name=\"csrf\"]').value"
            )
            let assign = try await console.post(
                "/actions/assign",
                fields: [
                    ("csrf", token), ("transaction_id", ConsoleBrowser.unclaimedTransaction),
                    ("order_id", ConsoleBrowser.shieldOrder),
                ],
                cookie: cookie.value
            )
            #expect(assign.status == 403)
            // Nothing changed.
            #expect(
                try await f.value("SELECT state FROM iap.jobs WHERE order_id = $1", [ConsoleBrowser.stuckOrder])
                    == "pending"
            )
            #expect(
                try await f.value(
                    "SELECT assigned_at IS NULL FROM iap.unclaimed_payments WHERE transaction_id = $1",
                    [ConsoleBrowser.unclaimedTransaction]
                ) == "t"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.operator_actions") == "0")
        }
    }

    @Test func aCrossSitePostWithoutTheTokenIsRefusedAndChangesNothing() async throws {
        let elsewhere = try await TestPageServer.start()
        do {
            try await ConsoleBrowser.with { console in
                let session = console.session
                let f = console.f
                try await console.signIn(ConsoleBrowser.agent)
                let cookie = try #require(try await console.sessionCookie())

                // Another site's page posts a form to the console in the agent's browser, which sends the cookie
                // (another port is the same site: SameSite does not stop it) but knows no token.
                try await session.navigate(to: elsewhere.baseURL + "/attack")
                let _: String? = try await session.executeScript(
                    """
                    const form = document.createElement('form');
                    form.method = 'post';
                    form.action = arguments[0] + '/actions/cancel';
                    const field = document.createElement('input');
                    field.name = 'order_id';
                    field.value = arguments[1];
                    form.appendChild(field);
                    document.body.appendChild(form);
                    form.submit();
                    """,
                    arguments: [console.baseURL, ConsoleBrowser.stuckOrder]
                )
                try await session.waitForURL { $0.path == "/actions/cancel" }
                let status: Int = try await session.executeScript(
                    "return performance.getEntriesByType('navigation')[0].responseStatus"
                )
                #expect(status == 403)

                // The same from outside the browser: the agent's cookie, no token, then a wrong one.
                let withoutToken = try await console.post(
                    "/actions/retry",
                    fields: [("order_id", ConsoleBrowser.scriptOrder)],
                    cookie: cookie.value
                )
                #expect(withoutToken.status == 403)
                let wrongToken = try await console.post(
                    "/actions/retry",
                    fields: [("csrf", String(repeating: "0", count: 64)), ("order_id", ConsoleBrowser.scriptOrder)],
                    cookie: cookie.value
                )
                #expect(wrongToken.status == 403)
                let withoutCookie = try await console.post(
                    "/actions/retry",
                    fields: [("order_id", ConsoleBrowser.scriptOrder)],
                    cookie: nil
                )
                #expect(withoutCookie.status == 403)

                // Nothing changed, and nothing was recorded as done.
                #expect(
                    try await f.value("SELECT state FROM iap.jobs WHERE order_id = $1", [ConsoleBrowser.stuckOrder])
                        == "pending"
                )
                #expect(
                    try await f.value("SELECT count(*) FROM iap.jobs WHERE order_id = $1", [ConsoleBrowser.scriptOrder])
                        == "1"
                )
                #expect(try await f.value("SELECT count(*) FROM iap.operator_actions") == "0")
            }
        } catch {
            await elsewhere.stop()
            throw error
        }
        await elsewhere.stop()
    }

    @Test func aStoreErrorHoldingAScriptShowsAsText() async throws {
        try await ConsoleBrowser.with { console in
            let session = console.session
            try await console.signIn(ConsoleBrowser.agent)
            try await console.open("/order?id=\(ConsoleBrowser.scriptOrder)")
            let attempt = try await session.waitForElement(css: "#timeline li[data-kind=\"attempt\"]")
            #expect(try await attempt.text().contains(ConsoleBrowser.scriptError))
            // No dialog opened, and the page runs no script but console.js.
            #expect(try await session.alertText() == nil)
            let scripts: [String] = try await session.executeScript(
                "return [...document.scripts].map(s => s.getAttribute('src') || 'inline')"
            )
            #expect(scripts == [ConsoleAssets.scriptPath])
            #expect(try await session.pageSource().contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    @Test func theSessionEndsAtSignOut() async throws {
        try await ConsoleBrowser.with { console in
            let session = console.session
            try await console.signIn(ConsoleBrowser.agent)
            let cookie = try #require(try await console.sessionCookie())
            #expect(try await console.get("/", cookie: cookie.value).status == 200)

            try await console.click("#signout", landingAt: "/signin")
            try await console.open("/")
            try await session.waitForURL { $0.path == "/signin" }
            _ = try await session.waitForElement(css: "#signin-form")
            // The browser's cookie is gone, and the old one opens nothing any more.
            #expect(try await console.sessionCookie().map(\.value).map(\.isEmpty) ?? true)
            let stale = try await console.get("/", cookie: cookie.value)
            #expect(stale.status == 303 && stale.location == "/signin")
            let post = try await console.post(
                "/actions/retry",
                fields: [("order_id", ConsoleBrowser.scriptOrder)],
                cookie: cookie.value
            )
            #expect(post.status == 403)
        }
    }

    /// Saves the page's screenshot as `NAME.png` (a test artifact) and checks it is a PNG with content.
    private func expectScreenshot(_ console: ConsoleBrowser, _ name: String) async throws {
        let file = try await console.saveScreenshot(name)
        let png = try Data(contentsOf: file)
        #expect(png.count > 1000)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}

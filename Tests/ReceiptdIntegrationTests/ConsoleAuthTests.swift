import AsyncHTTPClient
import Foundation
import Logging
import ReceiptdConsole
import ReceiptdCore
import Testing

/// Sign-in, sessions, CSRF and roles of `receiptd console`, over real HTTP to a real server and database.
@Suite struct ConsoleAuthTests {
    static let password = "correct horse"

    /// A console with operator `alice` and viewer `victor`, on an operator login to a fresh database.
    private func withConsole(
        logger: Logger = Logger(label: "console", factory: { _ in SwiftLogNoOpLogHandler() }),
        settings: (inout ConsoleSettings) -> Void = { _ in },
        _ body: (ConsoleTestServer) async throws -> Void
    ) async throws {
        try await Fixture.with { f in
            try await ConsoleTestServer.with(
                connectionString: try await f.loginRole(in: "receiptd_operator"),
                users: [
                    ConsoleTestServer.user("alice", password: Self.password),
                    ConsoleTestServer.user("victor", password: Self.password, role: .viewer),
                ],
                logger: logger,
                settings: settings,
                body
            )
        }
    }

    /// Signs `name` in and returns the session token.
    private func token(_ console: ConsoleTestServer, _ name: String = "alice") async throws -> String {
        let answer = try await console.signIn(name, Self.password)
        #expect(answer.status == 303 && answer.location == "/")
        return try #require(answer.sessionToken)
    }

    @Test func theRightPasswordSetsAStrictHttpOnlySecureCookieAndAWrongOneAnswers401() async throws {
        let lines = CapturingLogHandler.Lines()
        try await withConsole(logger: CapturingLogHandler.logger(into: lines)) { console in
            let page = try await console.get("/signin")
            #expect(page.status == 200)
            for id in ["signin-form", "name", "password", "signin"] { #expect(page.body.contains("id=\"\(id)\"")) }
            #expect(!page.body.contains("signin-error"))

            let wrong = try await console.signIn("alice", "wrong horse")
            #expect(wrong.status == 401 && wrong.setCookie == nil)
            #expect(wrong.body.contains(#"id="signin-error""#) && wrong.body.contains("Wrong name or password."))
            let unknown = try await console.signIn("mallory", Self.password)
            #expect(unknown.status == 401 && unknown.body.contains("Wrong name or password."))

            let right = try await console.signIn("alice", Self.password)
            #expect(right.status == 303 && right.location == "/")
            let cookie = try #require(right.setCookie)
            let attributes = Set(
                cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            )
            #expect(attributes.isSuperset(of: ["Path=/", "HttpOnly", "SameSite=Strict", "Secure", "Max-Age=28800"]))
            let token = try #require(right.sessionToken)
            #expect(token.count == 64)
            #expect(await console.session(token)?.user == "alice")
            // Signed in, the sign-in page sends the browser on.
            let again = try await console.get("/signin", token: token)
            #expect(again.status == 303 && again.location == "/")

            let logged = lines.all.joined(separator: "\n")
            #expect(logged.contains("alice") && logged.contains("mallory"))
            #expect(!logged.contains("horse") && !logged.contains(token) && !logged.contains("$2b$"))
            let csrf = try #require(await console.session(token)?.csrfToken)
            #expect(!logged.contains(csrf))
        }
    }

    @Test func insecureCookiesLeaveOutSecure() async throws {
        try await withConsole(settings: { $0.insecureCookies = true }) { console in
            let right = try await console.signIn("alice", Self.password)
            let cookie = try #require(right.setCookie)
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains("Secure"))
        }
    }

    @Test func theSixthFailureForANameWithinAMinuteAnswers429UntilTheMinuteHasPassed() async throws {
        try await withConsole { console in
            for _ in 0..<5 { #expect(try await console.signIn("alice", "guess").status == 401) }
            let throttled = try await console.signIn("alice", Self.password)
            #expect(throttled.status == 429 && throttled.setCookie == nil)
            #expect(throttled.body.contains("wait a minute") && throttled.headers.first(name: "retry-after") == "60")
            // Only that name: victor signs in.
            #expect(try await console.signIn("victor", Self.password).status == 303)
            // Unknown names are held back the same way.
            for _ in 0..<5 { #expect(try await console.signIn("nobody", "guess").status == 401) }
            #expect(try await console.signIn("nobody", "guess").status == 429)

            console.clock.advance(by: .seconds(59))
            #expect(try await console.signIn("alice", Self.password).status == 429)
            console.clock.advance(by: .seconds(2))
            let after = try await console.signIn("alice", Self.password)
            #expect(after.status == 303 && after.sessionToken != nil)
        }
    }

    @Test func theLimitCountsPerUserNotPerSpellingOfTheName() async throws {
        try await Fixture.with { f in
            try await ConsoleTestServer.with(
                connectionString: try await f.loginRole(in: "receiptd_operator"),
                users: [ConsoleTestServer.user("Kate", password: Self.password)]
            ) { console in
                for _ in 0..<5 { #expect(try await console.signIn("Kate", "guess").status == 401) }
                // KELVIN SIGN: other bytes, the same name in NFC, so no more guesses and no sign-in.
                let other = try await console.signIn("\u{212A}ate", Self.password)
                #expect(other.status == 429 && other.setCookie == nil)
                // Names that match nobody are counted per normalized name.
                for _ in 0..<5 { #expect(try await console.signIn("\u{212A}elvin", "guess").status == 401) }
                #expect(try await console.signIn("Kelvin", "guess").status == 429)
            }
        }
    }

    @Test func pagesNeedASessionAndSessionsEndAfterEightHours() async throws {
        try await withConsole { console in
            let anonymous = try await console.get("/")
            #expect(anonymous.status == 303 && anonymous.location == "/signin")
            let forged = try await console.get("/", token: String(repeating: "0", count: 64))
            #expect(forged.status == 303 && forged.location == "/signin")
            #expect(try await console.post("/actions/retry", form: [("order_id", "o1")]).status == 403)

            let token = try await token(console)
            console.clock.advance(by: .seconds(8 * 3600 - 60))
            #expect(try await console.get("/signin", token: token).location == "/")
            console.clock.advance(by: .seconds(61))
            let expired = try await console.get("/", token: token)
            #expect(expired.status == 303 && expired.location == "/signin")
            #expect(try await console.get("/signin", token: token).status == 200)
        }
    }

    @Test func signingOutNeedsTheTokenAndEndsTheSession() async throws {
        try await withConsole { console in
            let token = try await token(console)
            let csrf = try #require(await console.session(token)?.csrfToken)

            let withoutToken = try await console.post("/signout", form: [], token: token)
            #expect(withoutToken.status == 403)
            let wrongToken = try await console.post("/signout", form: [("csrf", String(csrf.reversed()))], token: token)
            #expect(wrongToken.status == 403)
            #expect(await console.session(token) != nil)
            #expect(try await console.get("/signin", token: token).location == "/")

            let signedOut = try await console.post("/signout", form: [("csrf", csrf)], token: token)
            #expect(signedOut.status == 303 && signedOut.location == "/signin")
            let cleared = try #require(signedOut.setCookie)
            #expect(cleared.hasPrefix("receiptd_console=;") && cleared.contains("Max-Age=0"))
            #expect(await console.session(token) == nil)
            let after = try await console.get("/", token: token)
            #expect(after.status == 303 && after.location == "/signin")
        }
    }

    @Test func aViewersPostsAndCrossSitePostsAreRefusedBeforeAnyRoute() async throws {
        try await withConsole { console in
            let viewer = try await token(console, "victor")
            let viewerCSRF = try #require(await console.session(viewer)?.csrfToken)
            for path in ["/actions/retry", "/actions/cancel", "/actions/assign", "/actions/replay", "/actions/nothing"]
            {
                let refused = try await console.post(
                    path,
                    form: [("csrf", viewerCSRF), ("order_id", "o1")],
                    token: viewer
                )
                #expect(refused.status == 403, "\(path)")
            }
            // A viewer may sign out.
            #expect(try await console.post("/signout", form: [("csrf", viewerCSRF)], token: viewer).status == 303)

            // Another site's form carries the cookie (were it not SameSite) but not the token.
            let operatorToken = try await token(console)
            let crossSite = try await console.post(
                "/actions/retry",
                form: [("order_id", "o1")],
                token: operatorToken,
                headers: [("origin", "https://evil.example"), ("referer", "https://evil.example/")]
            )
            #expect(crossSite.status == 403)
            // With the token the gate lets an operator through to the routes (404 where no action is registered).
            let csrf = try #require(await console.session(operatorToken)?.csrfToken)
            let admitted = try await console.post("/actions/nothing", form: [("csrf", csrf)], token: operatorToken)
            #expect(admitted.status != 403)
        }
    }

    @Test func everyAnswerCarriesAContentSecurityPolicyWithoutUnsafeInline() async throws {
        try await withConsole { console in
            let answers = [
                try await console.get("/signin"), try await console.get("/"),
                try await console.signIn("alice", "wrong"), try await console.post("/signout", form: []),
            ]
            for answer in answers {
                let policy = try #require(answer.headers.first(name: "content-security-policy"), "\(answer.status)")
                #expect(policy.contains("script-src 'self'") && policy.contains("form-action 'self'"))
                #expect(!policy.contains("unsafe-inline"))
                #expect(answer.headers.first(name: "x-frame-options") == "DENY")
            }
        }
    }
}

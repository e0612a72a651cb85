import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// The OIDC token on a push: every failing token answers 401 and stores nothing; Google's keys are fetched once,
/// re-fetched once for a new `kid`, and not once a request for kids nobody publishes.
extension GoogleNotificationIntakeTests {
    /// A push body of a TEST notification for `google`'s app.
    static func testPush(_ google: GooglePlayStandIn, id: String = UUID().uuidString) throws -> Data {
        GooglePlayStandIn.pushBody(
            data: try JSONEncoder().encode(GoogleDeveloperNotification.test(packageName: google.packageName)),
            messageID: id
        )
    }

    @Test func failingTokensAnswer401AndStoreNothing() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            let oidc = google.oidc
            let hourAgo = Date().addingTimeInterval(-3600)
            let tokens: [(String, String?)] = [
                ("missing", nil),
                ("not bearer", "Basic " + oidc.token(audience: Self.audience)),
                ("not a JWT", "Bearer not.a.jwt"),
                (
                    "expired",
                    "Bearer " + oidc.token(audience: Self.audience, issuedAt: hourAgo, lifetime: .seconds(1800))
                ),
                ("another audience", "Bearer " + oidc.token(audience: "https://elsewhere.test/push")),
                ("another key", "Bearer " + GoogleOIDCIssuer(publishing: false).token(audience: Self.audience)),
                ("another account", "Bearer " + oidc.token(audience: Self.audience, email: "intruder@evil.test")),
                ("email not verified", "Bearer " + oidc.token(audience: Self.audience, emailVerified: false)),
                ("another issuer", "Bearer " + oidc.token(audience: Self.audience, issuer: "https://evil.test")),
                (
                    "issued in the future",
                    "Bearer " + oidc.token(audience: Self.audience, issuedAt: Date().addingTimeInterval(600))
                ),
            ]
            for (name, authorization) in tokens {
                let (status, answer) = try await Self.post(
                    intake.url,
                    try Self.testPush(google),
                    authorization: authorization
                )
                #expect(status == 401 && answer == "token\n", "\(name): \(status) \(answer)")
            }
            #expect(try await Self.count(f) == 0)
            #expect(intake.refused("token") == tokens.count)
            // Within the minute of skew, an expired token is still taken.
            let justExpired = oidc.token(audience: Self.audience, issuedAt: hourAgo, lifetime: .seconds(3570))
            let (status, _) = try await Self.post(
                intake.url,
                try Self.testPush(google),
                authorization: "Bearer " + justExpired
            )
            #expect(status == 200)
        }
    }

    @Test func aRotatedKeyIsFetchedOnceThenTaken() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            #expect(
                try await Self.post(intake.url, try Self.testPush(google), authorization: Self.bearer(google)).0 == 200
            )
            #expect(google.jwksFetches() == 1)
            // Cached for max-age: more pushes fetch nothing.
            #expect(
                try await Self.post(intake.url, try Self.testPush(google), authorization: Self.bearer(google)).0 == 200
            )
            #expect(google.jwksFetches() == 1)
            google.oidc.rotate()
            // Several at once with the new kid share one re-fetch.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        try await Self.post(intake.url, try Self.testPush(google), authorization: Self.bearer(google)).0
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses == [200, 200, 200, 200, 200])
            #expect(google.jwksFetches() == 2, "one re-fetch for the new kid")
            #expect(try await Self.count(f) == 7)
        }
    }

    @Test func aKidNobodyPublishesIsRefusedWithoutAFetchStorm() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            #expect(
                try await Self.post(intake.url, try Self.testPush(google), authorization: Self.bearer(google)).0 == 200
            )
            #expect(google.jwksFetches() == 1)
            let unknown = "Bearer " + google.oidc.token(audience: Self.audience, kid: "no-such-kid")
            for _ in 0..<10 {
                let (status, answer) = try await Self.post(
                    intake.url,
                    try Self.testPush(google),
                    authorization: unknown
                )
                #expect(status == 401 && answer == "token\n")
            }
            #expect(google.jwksFetches() == 2, "one re-fetch, then none for a while")
            #expect(try await Self.count(f) == 1)
        }
    }

    @Test func keysThatCannotBeFetchedAnswer503() async throws {
        // A port nothing listens on: the fetch is refused at once.
        let certs = "http://127.0.0.1:\(try AppleNotificationIntakeTests.freePort())/certs"
        try await Self.withGoogleIntake(settings: { $0.googlePlay.oidcCertsURL = certs }) { f, google, intake in
            let (status, answer) = try await Self.post(
                intake.url,
                try Self.testPush(google),
                authorization: Self.bearer(google)
            )
            #expect(status == 503 && answer == "keys\n", "\(status) \(answer)")
            #expect(try await Self.count(f) == 0)
            #expect(intake.refused("keys") == 1)
        }
    }
}

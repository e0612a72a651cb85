import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Through the binaries: `receiptd run` serves `/notifications/google` with `RECEIPTD_NOTIFICATIONS_ADDR`, and
/// `receiptd fake-googleplay notify` has a running stand-in push to it.
extension GoogleNotificationIntakeTests {
    /// `receiptd fake-googleplay notify --stand-in <google> arguments…`.
    static func notify(_ google: GooglePlayStandIn, _ arguments: [String]) throws -> ReceiptdBinary.Run {
        try ReceiptdBinary.run(["fake-googleplay", "notify", "--stand-in", google.baseURL] + arguments)
    }

    @Test func receiptdRunTakesAPushTheStandInSends() async throws {
        let google = GooglePlayStandIn(logger: Self.quiet)
        _ = try await google.start()
        do {
            try await Fixture.with { f in
                let port = try AppleNotificationIntakeTests.freePort()
                let root = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "root-\(UUID().uuidString).pem"
                )
                try f.standIn.testChain.writeRoot(toFile: root.path)
                defer { try? FileManager.default.removeItem(at: root) }
                var environment = ProcessInfo.processInfo.environment
                environment.merge([
                    "DATABASE_URL": f.database.connectionString, "APPLE_BUNDLE_ID": SyntheticReceipt.defaultBundleID,
                    "APPLE_ROOT_CA_FILE": root.path, "RECEIPTD_NOTIFICATIONS_ADDR": "127.0.0.1:\(port)",
                    "RECEIPTD_METRICS_ADDR": "", "RECEIPTD_SHUTDOWN_GRACE": "1",
                    "GOOGLE_PLAY_PACKAGE_NAME": google.packageName, "GOOGLE_OIDC_CERTS_URL": google.oidcCertsURL,
                    "GOOGLE_PUBSUB_AUDIENCE": Self.audience,
                    "GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL": GoogleOIDCIssuer.defaultServiceAccountEmail,
                ]) { $1 }
                async let run = ReceiptdBinary.runDaemon(environment: environment, for: .seconds(10))
                let url = "http://127.0.0.1:\(port)/notifications/google"
                var pushed: ReceiptdBinary.Run?
                try await f.waitUntil(timeout: .seconds(8)) {
                    pushed = try Self.notify(
                        google,
                        [
                            "--url", url, "--audience", Self.audience, "--type", "voided", "--token", "tok-cli",
                            "--order-id", "GPA.7777", "--message-id", "cli-1",
                        ]
                    )
                    return pushed?.status == 0
                }
                let answer = try #require(
                    try JSONSerialization.jsonObject(with: Data((pushed?.stdout ?? "").utf8)) as? [String: Any]
                )
                #expect(answer["status"] as? Int == 200 && answer["message_id"] as? String == "cli-1")
                // Another audience: the daemon answers 401, and the command exits 1.
                let refused = try Self.notify(google, ["--url", url, "--type", "test", "--message-id", "cli-2"])
                #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
                #expect(refused.stdout.contains("401"))
                let result = try await run
                #expect(result.status == 0, "a graceful stop: \(result.stderr.suffix(2000))")
                let rows = try await f.connection.execute(
                    "SELECT notification_id, notification_type, transaction_id FROM iap.store_notifications"
                )
                #expect(rows.rows == [["cli-1", "VOIDED_PURCHASE", "GPA.7777"]])
            }
        } catch {
            try? await google.shutdown()
            throw error
        }
        try await google.shutdown()
    }

    @Test func fakeRTDNRefusesABadOrder() async throws {
        let google = GooglePlayStandIn(logger: Self.quiet)
        _ = try await google.start()
        let nowhere = "http://127.0.0.1:\(try AppleNotificationIntakeTests.freePort())/notifications/google"
        let noToken = try? Self.notify(google, ["--url", nowhere, "--type", "purchased"])
        // Nothing listens at the URL: the stand-in answers 502, the command exits 1.
        let unreachable = try? Self.notify(google, ["--url", nowhere, "--type", "test"])
        try await google.shutdown()
        #expect(noToken?.status != 0 && noToken?.stderr.contains("--token") == true, "\(noToken?.stderr ?? "")")
        #expect(unreachable?.status == 1 && unreachable?.stdout.contains("cannot push") == true)
    }
}

import FakeAppStore
import Foundation
import ReceiptdCore
import ReceiptdTestKit
import Testing

/// The Google route's body limit over raw TCP, and the database going away under it.
extension GoogleNotificationIntakeTests {
    @Test func aBodyOf10MiBAnswers400WithoutBeingRead() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            let size = 10 << 20
            let client = try RawTCPClient(port: intake.port)
            let head =
                "POST /notifications/google HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                + "Authorization: \(Self.bearer(google))\r\nContent-Length: \(size)\r\n\r\n"
            #expect(client.send(head))
            #expect(try await client.read(until: "\r\n\r\n", within: .seconds(5)), "answered before the body")
            #expect(client.received.hasPrefix("HTTP/1.1 400"), "\(client.received)")
            #expect(client.received.contains("too_large"))
            let chunk = String(repeating: "x", count: 64 << 10)
            var sent = 0
            while sent < size && client.send(chunk) { sent += chunk.utf8.count }
            #expect(sent < size, "the server stopped taking the body after \(sent) bytes")
            #expect(try await client.waitForClose(within: .seconds(5)))
            #expect(intake.refused("too_large") == 1)
            #expect(try await Self.count(f) == 0)
            #expect(google.jwksFetches() == 0, "refused before the token was looked at")

            // Just over 64 KiB without a declared length is refused too; under it is read.
            let notification = try JSONEncoder().encode(
                GoogleDeveloperNotification.test(packageName: google.packageName)
            )
            let padded = GooglePlayStandIn.pushBody(
                data: notification,
                messageID: "big",
                attributes: ["pad": String(repeating: "p", count: 65 << 10)]
            )
            #expect(try await Self.post(intake.url, padded, authorization: Self.bearer(google)).0 == 400)
            let fits = GooglePlayStandIn.pushBody(
                data: notification,
                messageID: "fits",
                attributes: ["pad": String(repeating: "p", count: 60 << 10)]
            )
            #expect(try await Self.post(intake.url, fits, authorization: Self.bearer(google)).0 == 200)
        }
    }

    @Test func theDatabaseAwayAnswers503ThenTheRedeliveryIsRecorded() async throws {
        let cluster = try await TestEnvironment.privateCluster()
        defer { cluster.stop() }
        let google = GooglePlayStandIn(logger: Self.quiet)
        _ = try await google.start()
        do {
            try await Self.recordsAcrossAnOutage(cluster: cluster, google: google)
        } catch {
            try? await google.shutdown()
            throw error
        }
        try await google.shutdown()
    }

    /// Pushes across a stop and restart of `cluster`'s server.
    static func recordsAcrossAnOutage(cluster: TemporaryPostgres, google: GooglePlayStandIn) async throws {
        try await Fixture.with(database: TestDatabase(cluster: cluster, name: "postgres")) { f in
            let settings = f.settings {
                $0.googlePlay.packageName = google.packageName
                Self.pushSettings(google)(&$0)
            }
            try await Self.withIntake(settings) { intake in
                let first = GoogleDeveloperNotification.voided(
                    token: "t1",
                    orderID: "GPA.1",
                    packageName: google.packageName
                )
                let missed = GoogleDeveloperNotification.voided(
                    token: "t2",
                    orderID: "GPA.2",
                    packageName: google.packageName
                )
                #expect(try await google.push(first, to: intake.url, audience: Self.audience, messageID: "d-1") == 200)
                try cluster.stopServer(mode: .fast)
                #expect(try await google.push(missed, to: intake.url, audience: Self.audience, messageID: "d-2") == 503)
                #expect(intake.refused("database") == 1)
                try cluster.resume()
                // Pub/Sub redelivers until it hears 2xx.
                var status = 0
                try await f.waitUntil(timeout: .seconds(20)) {
                    status =
                        (try? await google.push(missed, to: intake.url, audience: Self.audience, messageID: "d-2")) ?? 0
                    return status == 200
                }
                #expect(status == 200)
            }
            let fresh = try await f.database.connect()
            let ids = try await fresh.execute(
                "SELECT notification_id, transaction_id FROM iap.store_notifications ORDER BY 1"
            )
            #expect(ids.rows == [["d-1", "GPA.1"], ["d-2", "GPA.2"]], "nothing lost")
            await fresh.close()
        }
    }
}

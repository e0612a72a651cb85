import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTestKit
import Testing

/// Issue 22's crash safety: PostgreSQL going away under a sending daemon, and a daemon killed between sending an
/// event and recording it. Nothing is lost; what is sent again carries the same `webhook-id`.
extension WebhookDeliveryTests {
    /// Uses a cluster of its own, which it stops and starts (the shared one serves other tests).
    @Test func theDatabaseGoingAwayLosesNoAttemptAndDuplicatesNone() async throws {
        let cluster = try await TestEnvironment.privateCluster()
        defer { cluster.stop() }
        try await Fixture.with(database: TestDatabase(cluster: cluster, name: "postgres")) { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            // Slow answers, so that every attempt is in flight when the database stops: most taken, some refused.
            receiver.script(
                Array(repeating: .delayed(milliseconds: 1_500, status: 204), count: 15)
                    + Array(repeating: .delayed(milliseconds: 1_500, status: 500), count: 5)
            )
            let lines = CapturingLogHandler.Lines()
            // A lease longer than the outage: the daemon that sent an event records it.
            let settings = try f.deliverySettings(receiver) { $0.lease = .seconds(40) }
            var ids: [String] = []
            for index in 0..<20 { ids.append(try await f.writeWebhookEvent(order: "d\(index)")) }
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil { receiver.received().count == 20 }
                try cluster.stopServer(mode: .fast)
                // The answers arrive while the database is gone; the daemon must keep them.
                try await Task.sleep(for: .seconds(4))
                try cluster.resume()

                let fresh = try await f.database.connect()
                for index in 0..<5 { ids.append(try await f.writeWebhookEvent(order: "after-\(index)", on: fresh)) }
                try await f.waitUntil(timeout: .seconds(40)) {
                    try await fresh.execute(
                        "SELECT count(*) AS n FROM iap.webhook_events WHERE state = 'delivered'"
                    ).first?["n"] == "25"
                }
                await fresh.close()
            }
            let check = try await f.database.connect()
            let received = receiver.received()
            for id in ids {
                let row = try await f.webhookEvent(id, on: check)
                let requests = received.filter { $0.id == id }
                // Every request the receiver took is one attempt in the table, and each event was taken once.
                #expect(row["attempts"] == String(requests.count), "\(id): \(row["attempts"] ?? "") attempts")
                #expect(row["state"] == "delivered" && row["last_status"] == "204", "\(id)")
                #expect(requests.filter { ($0.status ?? 0) / 100 == 2 }.count == 1, "\(id)")
                #expect(requests.allSatisfy { $0.verified })
            }
            #expect(receiver.delivered().count == 25)
            await check.close()
            // Logged, not once per try: the outage and its end (a connection the pool still held may fail once more).
            func count(_ text: String) -> Int { lines.all.filter { $0.contains(text) }.count }
            let said = lines.all.filter { $0.contains("webhooks") }
            #expect((1...3).contains(count("webhooks: could not record attempts")), "\(said)")
            #expect(count("webhooks: recording again") == count("webhooks: could not record attempts"), "\(said)")
            #expect((1...3).contains(count("webhooks: could not claim events")), "\(said)")
            #expect(count("webhooks: database reachable again") == count("webhooks: could not claim events"))
        }
    }

    /// `receiptd run` SIGKILLed after the receiver took the request and before the answer came (so before it could
    /// record anything): the next daemon sends the event again once the lease is over, with the same `webhook-id`,
    /// and it is recorded delivered once.
    @Test func aDaemonKilledBetweenSendingAndRecordingLeavesTheEventToBeSentAgain() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            // The receiver takes the first request (a 2xx it acts on) but answers only after the kill.
            receiver.script([.delayed(milliseconds: 5_000, status: 204)])
            let secretFile = FileManager.default.temporaryDirectory
                .appendingPathComponent("receiptd-webhook-secret-\(UUID().uuidString)")
            try Data((Fixture.webhookSecret + "\n").utf8).write(to: secretFile)
            defer { try? FileManager.default.removeItem(at: secretFile) }
            let id = try await f.writeWebhookEvent()

            var environment = ProcessInfo.processInfo.environment
            environment.merge([
                "DATABASE_URL": f.database.connectionString, "APPLE_BUNDLE_ID": SyntheticReceipt.defaultBundleID,
                "APPLE_SHARED_SECRET": Fixture.sharedSecret, "APPLE_VERIFY_URL": f.standIn.productionURL,
                "APPLE_SANDBOX_VERIFY_URL": f.standIn.sandboxURL, "RECEIPTD_METRICS_ADDR": "",
                "RECEIPTD_POLL_INTERVAL": "0.1", "RECEIPTD_WEBHOOK_URL": receiver.url,
                "RECEIPTD_WEBHOOK_SECRET_FILE": secretFile.path,
            ]) { $1 }
            let process = try ReceiptdBinary.startDaemon(environment: environment)
            do {
                try await f.waitUntil { receiver.received().count == 1 }
            } catch {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw error
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            let claimed = try await f.webhookEvent(id)
            #expect(claimed["state"] == "pending" && claimed["attempts"] == "1" && claimed["locked_by"] != nil)
            #expect(claimed["last_status"] == nil)
            try await f.withDaemons(settings: try f.deliverySettings(receiver)) { _ in
                // The dead daemon's lease (60 s, the default) still holds it: nobody sends it meanwhile.
                try await Task.sleep(for: .seconds(1.5))
                #expect(receiver.received().count == 1)
                // The lease lapses (moved to now rather than waiting out the minute).
                try await f.connection.execute(
                    "UPDATE iap.webhook_events SET locked_until = now() WHERE id = $1",
                    [id]
                )
                try await f.waitUntil { try await f.webhookEvent(id)["state"] == "delivered" }
            }
            let received = receiver.received()
            #expect(received.map(\.id) == [id, id])
            #expect(received.map(\.duplicate) == [false, true])
            #expect(received.allSatisfy { $0.verified })
            #expect(Set(received.map(\.body)).count == 1)
            #expect(receiver.delivered().map(\.id) == [id])
            let row = try await f.webhookEvent(id)
            #expect(row["attempts"] == "2" && row["last_status"] == "204" && row["locked_by"] == nil)
            #expect(try await f.value("SELECT count(*) FROM iap.webhook_events") == "1")
        }
    }
}

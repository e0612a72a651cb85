import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The intake through the `receiptd run` binary: `RECEIPTD_NOTIFICATIONS_ADDR` turns it on, a malformed one exits 78.
extension AppleNotificationIntakeTests {
    /// A loopback port nothing listens on right now.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func receiptdRunServesTheEndpointWhenTheAddressIsSet() async throws {
        try await Fixture.with { f in
            let port = try Self.freePort()
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("root-\(UUID().uuidString).pem")
            try f.standIn.testChain.writeRoot(toFile: root.path)
            defer { try? FileManager.default.removeItem(at: root) }
            var environment = ProcessInfo.processInfo.environment
            environment.merge([
                "DATABASE_URL": f.database.connectionString, "APPLE_BUNDLE_ID": SyntheticReceipt.defaultBundleID,
                "APPLE_ROOT_CA_FILE": root.path, "RECEIPTD_NOTIFICATIONS_ADDR": "127.0.0.1:\(port)",
                "RECEIPTD_METRICS_ADDR": "", "RECEIPTD_SHUTDOWN_GRACE": "1", "RECEIPTD_LOG_FORMAT": "json",
            ]) { $1 }
            async let run = ReceiptdBinary.runDaemon(environment: environment, for: .seconds(10))
            let payload = Self.refund("8601", chain: f.standIn.testChain)
            var status = 0
            try await f.waitUntil(timeout: .seconds(8)) {
                status = (try? await Self.post(port, f.standIn.testChain.notificationBody(payload)).0) ?? 0
                return status == 200
            }
            let result = try await run
            #expect(status == 200)
            #expect(
                try await f.value("SELECT notification_id FROM iap.store_notifications") == payload.notificationUUID
            )
            let logs = result.stdout + result.stderr
            #expect(logs.contains("notification endpoint listening") && logs.contains("127.0.0.1:\(port)"), "\(logs)")
            #expect(result.status == 0, "a graceful stop: \(logs.suffix(2000))")
        }
    }

    @Test func aMalformedNotificationsAddressExits78NamingIt() throws {
        let run = try ReceiptdBinary.run(
            ["run", "--apple-bundle-id", "com.example.game"],
            environment: ["RECEIPTD_NOTIFICATIONS_ADDR": "localhost"]
        )
        #expect(run.status == 78 && run.stderr.contains("RECEIPTD_NOTIFICATIONS_ADDR"), "\(run.stderr)")
        let flag = try ReceiptdBinary.run([
            "run", "--apple-bundle-id", "com.example.game", "--notifications-addr", "127.0.0.1:99999",
        ])
        #expect(flag.status == 78 && flag.stderr.contains("RECEIPTD_NOTIFICATIONS_ADDR"), "\(flag.stderr)")
    }
}

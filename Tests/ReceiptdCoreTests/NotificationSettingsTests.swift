import Testing

@testable import ReceiptdCore

/// Issue 19: `RECEIPTD_NOTIFICATIONS_ADDR` turns the notification endpoint on; unset or empty leaves it off, and it
/// takes the same `host:port` syntax as `RECEIPTD_METRICS_ADDR`.
@Suite struct NotificationSettingsTests {
    @Test func theEndpointIsOffUnlessAnAddressIsSet() throws {
        #expect(try ReceiptdSettings(completing: [:]).notifications == nil)
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_NOTIFICATIONS_ADDR": ""]).notifications == nil)
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_NOTIFICATIONS_ADDR": " "]).notifications == nil)
    }

    @Test(arguments: [(":8443", "0.0.0.0", 8443), ("127.0.0.1:0", "127.0.0.1", 0), ("[::1]:9000", "::1", 9000)])
    func addressesAreParsed(text: String, host: String, port: Int) throws {
        let settings = try ReceiptdSettings(completing: ["RECEIPTD_NOTIFICATIONS_ADDR": text])
        #expect(settings.notifications == MetricsServer.Configuration(host: host, port: port))
        #expect(settings.metrics == MetricsServer.Configuration(), "the metrics endpoint keeps its own default")
    }

    @Test(arguments: ["localhost", "127.0.0.1:", "127.0.0.1:70000", "::1:9464"])
    func badAddressesNameTheVariable(text: String) {
        #expect {
            _ = try ReceiptdSettings(completing: ["RECEIPTD_NOTIFICATIONS_ADDR": text])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "RECEIPTD_NOTIFICATIONS_ADDR"
        }
    }
}

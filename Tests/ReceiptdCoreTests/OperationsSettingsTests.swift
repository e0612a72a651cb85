import Testing

@testable import ReceiptdCore

/// The settings operators add: `RECEIPTD_METRICS_ADDR` and `RECEIPTD_LOG_FORMAT`.
@Suite struct OperationsSettingsTests {
    @Test func theDefaultIsLoopbackPort9464() throws {
        let settings = try ReceiptdSettings(completing: [:])
        #expect(settings.metrics == MetricsServer.Configuration(host: "127.0.0.1", port: 9464))
    }

    @Test func emptyTurnsTheEndpointOff() throws {
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_METRICS_ADDR": ""]).metrics == nil)
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_METRICS_ADDR": "  "]).metrics == nil)
    }

    @Test(arguments: [
        ("0.0.0.0:9100", "0.0.0.0", 9100), (":9464", "0.0.0.0", 9464), ("[::1]:9464", "::1", 9464),
        ("metrics.internal:80", "metrics.internal", 80), ("127.0.0.1:0", "127.0.0.1", 0),
    ])
    func addressesAreParsed(text: String, host: String, port: Int) throws {
        let settings = try ReceiptdSettings(completing: ["RECEIPTD_METRICS_ADDR": text])
        #expect(settings.metrics == MetricsServer.Configuration(host: host, port: port))
    }

    @Test(arguments: [
        "localhost", "127.0.0.1:", "127.0.0.1:http", "127.0.0.1:70000", "::1:9464", "[::1]", "[127.0.0.1]:9", "a b:1",
    ])
    func badAddressesNameTheVariable(text: String) {
        #expect {
            _ = try ReceiptdSettings(completing: ["RECEIPTD_METRICS_ADDR": text])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "RECEIPTD_METRICS_ADDR"
        }
    }

    @Test func theLogFormatIsAutomaticUnlessChosen() throws {
        #expect(try ReceiptdSettings(completing: [:]).logFormat == nil)
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_LOG_FORMAT": "JSON"]).logFormat == .json)
        #expect(try ReceiptdSettings(completing: ["RECEIPTD_LOG_FORMAT": "text"]).logFormat == .text)
    }

    @Test func aBadLogFormatNamesTheVariable() {
        #expect {
            _ = try ReceiptdSettings(completing: ["RECEIPTD_LOG_FORMAT": "yaml"])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "RECEIPTD_LOG_FORMAT"
        }
    }

    @Test func theAddressPrintsBackWithBracketsForIPv6() {
        #expect(MetricsServer.Configuration(host: "::1", port: 1).address == "[::1]:1")
        #expect(MetricsServer.Configuration().address == "127.0.0.1:9464")
    }
}

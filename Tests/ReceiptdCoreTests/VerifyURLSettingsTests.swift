import Testing

@testable import ReceiptdCore

/// `APPLE_VERIFY_URL` and `APPLE_SANDBOX_VERIFY_URL` carry the shared secret: https, or http to loopback only.
@Suite struct VerifyURLSettingsTests {
    @Test(
        arguments: ["APPLE_VERIFY_URL", "APPLE_SANDBOX_VERIFY_URL"],
        [
            "http://example.com/verifyReceipt", "HTTP://buy.itunes.apple.com/verifyReceipt",
            "http://10.0.0.5:8080/verifyReceipt",
            "http://128.0.0.1/verifyReceipt", "http://localhost.example.com/verifyReceipt",
            "http://[::2]/verifyReceipt",
            "http://[::ffff:10.0.0.1]/verifyReceipt", "http://127.0.0.1.example.com/verifyReceipt",
        ]
    )
    func plainHTTPToTheNetworkIsRefused(name: String, url: String) {
        #expect {
            _ = try ReceiptdSettings(completing: [name: url])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.variable == name && error.problem.contains("in clear")
        }
    }

    @Test(arguments: [
        "https://buy.itunes.apple.com/verifyReceipt", "https://10.0.0.5:8443/verifyReceipt",
        "http://127.0.0.1:8080/verifyReceipt",
        "http://127.9.8.7/verifyReceipt", "http://localhost/verifyReceipt", "http://LOCALHOST:9/verifyReceipt",
        "http://[::1]:9/verifyReceipt",
    ])
    func httpsAndLoopbackHTTPAreAccepted(url: String) throws {
        let settings = try ReceiptdSettings(completing: ["APPLE_VERIFY_URL": url, "APPLE_SANDBOX_VERIFY_URL": url])
        #expect(settings.apple.productionURL == url)
        #expect(settings.apple.sandboxURL == url)
    }
}

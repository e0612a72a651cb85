import Crypto
import Foundation
import Testing
import X509

@testable import ReceiptdCore

/// `APPLE_ROOT_CA_FILE`, the App Store Server API key and its endpoints: defaults, and errors that name the
/// variable without printing a key.
@Suite struct StoreKitSettingsTests {
    private func withFile(_ contents: String, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test func theShippedRootIsAppleRootCAG3() throws {
        let der = try AppleRootCertificates.rootG3.serializeAsPEM().derBytes
        let fingerprint = SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(
            fingerprint
                == "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79"
        )
        #expect("\(AppleRootCertificates.rootG3.subject)".contains("Apple Root CA - G3"))
    }

    @Test func defaultsTrustAppleAndNeedNoKey() throws {
        let settings = try ReceiptdSettings(completing: [:])
        #expect(settings.storeKit.trustedRoots == [AppleRootCertificates.rootG3])
        #expect(settings.storeKit.credentials == nil)
        #expect(settings.storeKit.serverAPIURL == "https://api.storekit.apple.com")
        #expect(settings.storeKit.serverAPISandboxURL == "https://api.storekit-sandbox.apple.com")
        #expect(settings.storeKit.serverAPIRate == 50)
    }

    @Test func aRootFileReplacesTheDefaultAndMayHoldSeveral() throws {
        let pem = try AppleRootCertificates.rootG3.serializeAsPEM().pemString
        try withFile(pem + "\n" + pem) { path in
            let settings = try ReceiptdSettings(completing: ["APPLE_ROOT_CA_FILE": path])
            #expect(settings.storeKit.trustedRoots.count == 2)
        }
        try withFile("not a certificate") { path in
            #expect { _ = try ReceiptdSettings(completing: ["APPLE_ROOT_CA_FILE": path]) } throws: { error in
                (error as? ConfigurationError)?.variable == "APPLE_ROOT_CA_FILE"
            }
        }
        #expect { _ = try ReceiptdSettings(completing: ["APPLE_ROOT_CA_FILE": "/nonexistent/root.pem"]) } throws: {
            error in
            (error as? ConfigurationError)?.variable == "APPLE_ROOT_CA_FILE"
        }
    }

    @Test func theKeySettingsComeTogether() throws {
        let key = P256.Signing.PrivateKey().pemRepresentation
        try withFile(key) { path in
            let all = ["APPLE_ISSUER_ID": "issuer", "APPLE_KEY_ID": "KEY1", "APPLE_PRIVATE_KEY_FILE": path]
            let credentials = try #require(try ReceiptdSettings(completing: all).storeKit.credentials)
            #expect(credentials.issuerID == "issuer" && credentials.keyID == "KEY1")
            #expect(!"\(credentials)".contains("PRIVATE"))
            for missing in all.keys {
                #expect { _ = try ReceiptdSettings(completing: all.filter { $0.key != missing }) } throws: { error in
                    (error as? ConfigurationError)?.variable == missing
                }
            }
        }
    }

    @Test func anUnreadableOrForeignKeyFileNamesTheVariableNotTheKey() throws {
        let rsaLike =
            "-----BEGIN PRIVATE KEY-----\nTUlJQ2RnSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NBbUF3Z2dKY0FnRUFBb0dCQUwx\n-----END PRIVATE KEY-----"
        try withFile(rsaLike) { path in
            let settings = ["APPLE_ISSUER_ID": "issuer", "APPLE_KEY_ID": "KEY1", "APPLE_PRIVATE_KEY_FILE": path]
            #expect { _ = try ReceiptdSettings(completing: settings) } throws: { error in
                guard let error = error as? ConfigurationError else { return false }
                return error.variable == "APPLE_PRIVATE_KEY_FILE" && !error.description.contains("TUlJQ2RnSUJBREFO")
            }
        }
        let unreadable = [
            "APPLE_ISSUER_ID": "issuer", "APPLE_KEY_ID": "KEY1", "APPLE_PRIVATE_KEY_FILE": "/nonexistent/key.p8",
        ]
        #expect { _ = try ReceiptdSettings(completing: unreadable) } throws: { error in
            (error as? ConfigurationError)?.variable == "APPLE_PRIVATE_KEY_FILE"
        }
    }

    @Test func endpointsAndRate() throws {
        let settings = try ReceiptdSettings(completing: [
            "APPLE_SERVER_API_URL": "http://127.0.0.1:9000",
            "APPLE_SERVER_API_SANDBOX_URL": "http://127.0.0.1:9000/sandbox",
            "APPLE_SERVER_API_RATE": "7",
        ])
        #expect(settings.storeKit.serverAPIURL == "http://127.0.0.1:9000")
        #expect(settings.storeKit.serverAPISandboxURL == "http://127.0.0.1:9000/sandbox")
        #expect(settings.storeKit.serverAPIRate == 7)
        for bad in [
            ["APPLE_SERVER_API_RATE": "0"], ["APPLE_SERVER_API_RATE": "fast"],
            ["APPLE_SERVER_API_URL": "http://api.example.com"],
        ] {
            #expect(throws: ConfigurationError.self) { _ = try ReceiptdSettings(completing: bad) }
        }
    }

    /// Issue 17, item 1: bare transaction ids without the order's token are refused unless the game says otherwise.
    @Test func transactionIDsWithoutTokenAreRefusedByDefault() throws {
        #expect(try ReceiptdSettings(completing: [:]).storeKit.transactionIDWithoutToken == .reject)
        for (spelling, policy) in [("accept", TransactionIDTokenPolicy.accept), ("Reject", .reject)] {
            let settings = try ReceiptdSettings(completing: ["RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN": spelling])
            #expect(settings.storeKit.transactionIDWithoutToken == policy)
        }
        #expect { _ = try ReceiptdSettings(completing: ["RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN": "maybe"]) } throws: {
            error in
            (error as? ConfigurationError)?.variable == "RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN"
        }
    }

    /// Issue 17, item 1: app receipts' signatures chain to Apple Inc. Root unless `APPLE_RECEIPT_ROOT_CA_FILE` says
    /// otherwise; a file without a certificate stops `run` naming the variable.
    @Test func receiptRootsDefaultToAppleIncRootAndMayBeReplaced() throws {
        #expect(try ReceiptdSettings(completing: [:]).storeKit.receiptRoots == [AppleRootCertificates.appleIncRoot])
        let pem =
            try AppleRootCertificates.rootG3.serializeAsPEM().pemString + "\n"
            + AppleRootCertificates.appleIncRoot.serializeAsPEM().pemString
        try withFile(pem) { path in
            let settings = try ReceiptdSettings(completing: ["APPLE_RECEIPT_ROOT_CA_FILE": path])
            #expect(
                settings.storeKit.receiptRoots == [AppleRootCertificates.rootG3, AppleRootCertificates.appleIncRoot]
            )
            #expect(settings.storeKit.trustedRoots == [AppleRootCertificates.rootG3])
        }
        for path in ["/nonexistent/receipt-root.pem", nil] {
            try withFile("no certificate here") { garbage in
                #expect {
                    _ = try ReceiptdSettings(completing: ["APPLE_RECEIPT_ROOT_CA_FILE": path ?? garbage])
                } throws: { error in
                    (error as? ConfigurationError)?.variable == "APPLE_RECEIPT_ROOT_CA_FILE"
                }
            }
        }
    }
}

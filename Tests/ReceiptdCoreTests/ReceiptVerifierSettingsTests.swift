import Crypto
import Foundation
import Testing

@testable import ReceiptdCore

/// `RECEIPTD_RECEIPT_VERIFIER`: verifyReceipt by default, the Server API's history on request, and only with its key.
@Suite struct ReceiptVerifierSettingsTests {
    @Test func verifyReceiptIsTheDefault() throws {
        #expect(try ReceiptdSettings(completing: [:]).storeKit.receiptVerifier == .verifyReceipt)
        #expect(
            try ReceiptdSettings(completing: ["RECEIPTD_RECEIPT_VERIFIER": "Verify_Receipt"]).storeKit.receiptVerifier
                == .verifyReceipt
        )
    }

    @Test func serverAPIComesWithTheKeyInAnyCase() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-\(UUID().uuidString).p8")
            .path
        #expect(
            FileManager.default.createFile(
                atPath: path,
                contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8)
            )
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = ["APPLE_ISSUER_ID": "issuer", "APPLE_KEY_ID": "KEY1", "APPLE_PRIVATE_KEY_FILE": path]
        for spelling in ["server_api", "SERVER_API"] {
            let settings = try ReceiptdSettings(completing: key.merging(["RECEIPTD_RECEIPT_VERIFIER": spelling]) { $1 })
            #expect(settings.storeKit.receiptVerifier == .serverAPI)
        }
    }

    @Test func serverAPIWithoutTheKeyIsRefusedNamingIt() {
        #expect { _ = try ReceiptdSettings(completing: ["RECEIPTD_RECEIPT_VERIFIER": "server_api"]) } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.variable == "RECEIPTD_RECEIPT_VERIFIER" && error.problem.contains("APPLE_PRIVATE_KEY_FILE")
                && error.problem.contains("APPLE_ISSUER_ID") && error.problem.contains("APPLE_KEY_ID")
        }
    }

    @Test func anythingElseNamesTheVariable() {
        for bad in ["server-api", "storekit"] {
            #expect { _ = try ReceiptdSettings(completing: ["RECEIPTD_RECEIPT_VERIFIER": bad]) } throws: { error in
                (error as? ConfigurationError)?.variable == "RECEIPTD_RECEIPT_VERIFIER"
            }
        }
    }
}

import Crypto
import Foundation
import Testing
import X509
@testable import ReceiptdCore

/// Issue 17, item 1: under `server_api` an app receipt's PKCS#7 signature must verify to Apple Inc. Root at the
/// receipt's creation date. Real receipts Apple signed (Tests/Fixtures/AppleReceipts) verify against the shipped
/// root although their signing certificates have expired; changed or re-dated ones do not.
@Suite struct ReceiptSignatureVerifierTests {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/AppleReceipts")

    private static func receipt(_ name: String) throws -> AppReceipt {
        try AppReceipt(base64: String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8))
    }

    private static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    private let shipped = ReceiptSignatureVerifier(roots: [AppleRootCertificates.appleIncRoot])

    @Test func theShippedReceiptRootIsAppleIncRoot() throws {
        let der = try AppleRootCertificates.appleIncRoot.serializeAsPEM().derBytes
        let fingerprint = SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(fingerprint == "B0:B1:73:0E:CB:C7:FF:45:05:14:2C:49:F1:29:5E:6E:DA:6B:CA:ED:7E:2C:68:C5:BE:91:B5:A1:10:01:F0:24")
        #expect("\(AppleRootCertificates.appleIncRoot.subject)".contains("Apple Root CA"))
    }

    @Test(arguments: [("production-2024-02-23.base64", "2024-02-23T17:27:16Z"), ("sandbox-2020-05-06.base64", "2020-05-06T18:28:49Z")])
    func aReceiptAppleSignedVerifiesAtItsCreationDate(name: String, created: String) async throws {
        let receipt = try Self.receipt(name)
        #expect(receipt.creationDate == Self.date(created))
        #expect(receipt.signature?.certificates.count == 3)
        #expect(!receipt.transactionIDs.isEmpty)
        try await shipped.verify(receipt)
        // Today its signing certificate has expired: only the creation date makes it valid.
        var today = receipt
        today.creationDate = Date()
        await #expect { try await shipped.verify(today) } throws: { error in
            "\(error)".contains("does not verify to a trusted receipt root at its creation date")
        }
    }

    /// Why `verifier` refuses `receipt`; `nil` when it accepts it.
    private func rejection(_ receipt: AppReceipt, by verifier: ReceiptSignatureVerifier? = nil) async -> String? {
        do {
            try await (verifier ?? shipped).verify(receipt)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aChangedReceiptOrAnotherRootFails() async throws {
        var receipt = try Self.receipt("production-2024-02-23.base64")
        let g3 = ReceiptSignatureVerifier(roots: [AppleRootCertificates.rootG3])
        #expect(await rejection(receipt, by: g3)?.contains("does not verify to a trusted receipt root") == true)
        var changed = receipt
        changed.signature?.signedContent[100] ^= 0x01
        #expect(await rejection(changed) == "receipt signature does not verify with its signer certificate's key")
        receipt.signature = nil
        #expect(await rejection(receipt) == "receipt is not signed: its PKCS#7 container has no signer")
    }
}

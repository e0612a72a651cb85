import Crypto
import FakeAppStore
import Foundation
import Testing
import X509

@testable import ReceiptdCore

/// Issue 17, item 1: under `server_api` an app receipt's PKCS#7 signature must verify to Apple Inc. Root (or the
/// configured receipt roots) at the receipt's creation date. Receipts signed by a test chain shaped like Apple's
/// verify at their creation date although the chain has expired since; changed, re-dated or unsigned ones, and
/// ones checked against another root, do not.
@Suite struct ReceiptSignatureVerifierTests {
    private static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// A chain valid from 2019 to 2021 only, like Apple's SHA-1 receipt intermediate that expired in 2025.
    private static let expiredChain = try! AppleReceiptTestChain.generate(
        notValidBefore: date("2019-01-01T00:00:00Z"),
        notValidAfter: date("2021-01-01T00:00:00Z")
    )

    private static func receipt(created: Date, signer: AppleReceiptTestChain? = expiredChain) throws -> AppReceipt {
        let purchase = SignedTransactionPayload(transactionId: "2000000000000001", productId: "gems")
        return try AppReceipt(
            base64: AppReceiptBuilder(inApp: [purchase], creationDate: created, signer: signer).encoded()
        )
    }

    private let verifier = ReceiptSignatureVerifier(roots: [expiredChain.root])

    @Test func theShippedReceiptRootIsAppleIncRoot() throws {
        let der = try AppleRootCertificates.appleIncRoot.serializeAsPEM().derBytes
        let fingerprint = SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(
            fingerprint
                == "B0:B1:73:0E:CB:C7:FF:45:05:14:2C:49:F1:29:5E:6E:DA:6B:CA:ED:7E:2C:68:C5:BE:91:B5:A1:10:01:F0:24"
        )
        #expect("\(AppleRootCertificates.appleIncRoot.subject)".contains("Apple Root CA"))
    }

    @Test func aReceiptVerifiesAtItsCreationDateNotToday() async throws {
        let receipt = try Self.receipt(created: Self.date("2020-05-06T18:28:49Z"))
        #expect(receipt.creationDate == Self.date("2020-05-06T18:28:49Z"))
        #expect(receipt.signature?.certificates.count == 3)
        #expect(receipt.transactionIDs == ["2000000000000001"])
        try await verifier.verify(receipt)
        // Today its signing chain has expired: only the creation date makes it valid.
        var today = receipt
        today.creationDate = Date()
        await #expect { try await verifier.verify(today) } throws: { error in
            "\(error)".contains("does not verify to a trusted receipt root at its creation date")
        }
    }

    /// Why `verifier` refuses `receipt`; `nil` when it accepts it.
    private func rejection(_ receipt: AppReceipt, by other: ReceiptSignatureVerifier? = nil) async -> String? {
        do {
            try await (other ?? verifier).verify(receipt)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aChangedReceiptOrAnotherRootFails() async throws {
        var receipt = try Self.receipt(created: Self.date("2020-05-06T18:28:49Z"))
        let shipped = ReceiptSignatureVerifier(roots: [AppleRootCertificates.appleIncRoot])
        #expect(await rejection(receipt, by: shipped)?.contains("does not verify to a trusted receipt root") == true)
        var changed = receipt
        let last = try #require(changed.signature?.signedContent.indices.last)
        changed.signature?.signedContent[last] ^= 0x01
        #expect(await rejection(changed) == "receipt signature does not verify with its signer certificate's key")
        receipt.signature = nil
        #expect(await rejection(receipt) == "receipt is not signed: its PKCS#7 container has no signer")
        #expect(
            await rejection(try Self.receipt(created: Self.date("2020-05-06T18:28:49Z"), signer: nil))
                == "receipt is not signed: its PKCS#7 container has no signer"
        )
    }
}

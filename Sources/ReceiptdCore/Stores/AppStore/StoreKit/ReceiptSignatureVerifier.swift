import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Checks an app receipt's PKCS#7 signature before `server_api` believes a word of it: signed by the key of a
/// certificate the receipt carries, with Apple's algorithms, and that certificate chaining to a trusted root
/// (Apple Inc. Root in production) at the receipt's creation date, with Apple's OIDs on the leaf and the
/// intermediate. A receipt anyone could have made would otherwise name any player's transaction id.
///
/// swift-certificates' CMS verification (`CMS.isValidSignature`) cannot be used as is: Apple's `SignerInfo`
/// names the signature algorithm `rsaEncryption` with a separate digest algorithm (RFC 3370), which it rejects.
/// So the `SignedData` is read by `AppReceipt`, and its signature and chain are checked here with
/// swift-certificates' own primitives: `Certificate.PublicKey.isValidSignature` (PKCS#1 v1.5 over the digest)
/// and its `Verifier` with an RFC 5280 policy at a fixed time.
package struct ReceiptSignatureVerifier: Sendable {
    /// Why a receipt is not one Apple signed: the check that failed, for `last_error`.
    package struct Rejection: Error, Equatable, CustomStringConvertible {
        /// The failed check, in words.
        package var description: String
    }

    private static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    private static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    private static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    private static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    private static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    private static let sha1WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 5]
    private static let sha256WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 11]

    private let roots: CertificateStore

    /// Creates a verifier that trusts `roots` (Apple Inc. Root in production).
    package init(roots: [Certificate]) {
        self.roots = CertificateStore(roots)
    }

    /// Returns once `receipt` is signed as Apple signs receipts; `now` bounds the validation time, so a receipt
    /// dated in the future is checked today.
    package func verify(_ receipt: AppReceipt, now: Date = Date()) async throws(Rejection) {
        guard let signed = receipt.signature else {
            throw Rejection(description: "receipt is not signed: its PKCS#7 container has no signer")
        }
        guard !signed.hasSignedAttributes else {
            throw Rejection(
                description: "receipt signature covers signed attributes, which App Store receipts never carry"
            )
        }
        guard
            let algorithm = Self.signatureAlgorithm(
                digest: signed.digestAlgorithm,
                signature: signed.signatureAlgorithm
            )
        else {
            throw Rejection(
                description:
                    "receipt signature algorithm \(signed.signatureAlgorithm) with digest \(signed.digestAlgorithm) "
                    + "is not one App Store receipts use (RSA with SHA-1 or SHA-256)"
            )
        }
        guard let signer = signed.signerCertificate else {
            throw Rejection(description: "receipt's signer certificate is not among the certificates it carries")
        }
        guard
            signer.publicKey.isValidSignature(
                signed.signature,
                for: signed.signedContent,
                signatureAlgorithm: algorithm
            )
        else {
            throw Rejection(description: "receipt signature does not verify with its signer certificate's key")
        }
        guard let created = receipt.creationDate else {
            throw Rejection(description: "receipt has no readable creation date")
        }
        let validationTime = min(created, now)
        var verifier = Verifier(rootCertificates: roots) { RFC5280Policy(fixedExpiryValidationTime: validationTime) }
        let chain: ValidatedCertificateChain
        switch await verifier.validate(leaf: signer, intermediates: CertificateStore(signed.certificates)) {
        case .validCertificate(let validated):
            chain = validated
        case .couldNotValidate(let failures):
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "no path to a trusted root"
            throw Rejection(
                description:
                    "receipt's certificate chain does not verify to a trusted receipt root at its creation date "
                    + "\(Self.format(created)): \(reason)"
            )
        }
        guard chain.count == 3 else {
            throw Rejection(description: "receipt's certificate chain has \(chain.count) certificates, not 3")
        }
        guard chain[1].extensions.contains(where: { $0.oid == Self.intermediateOID }) else {
            throw Rejection(
                description: "receipt's intermediate certificate lacks Apple's OID 1.2.840.113635.100.6.2.1"
            )
        }
        guard chain[0].extensions.contains(where: { $0.oid == Self.leafOID }) else {
            throw Rejection(description: "receipt's signing certificate lacks Apple's OID 1.2.840.113635.100.6.11.1")
        }
    }

    /// RSA PKCS#1 v1.5 with the digest the signer names: Apple writes `rsaEncryption` and the digest apart.
    private static func signatureAlgorithm(
        digest: ASN1ObjectIdentifier,
        signature: ASN1ObjectIdentifier
    ) -> Certificate.SignatureAlgorithm? {
        switch (digest, signature) {
        case (sha1, rsaEncryption), (sha1, sha1WithRSA): .sha1WithRSAEncryption
        case (sha256, rsaEncryption), (sha256, sha256WithRSA): .sha256WithRSAEncryption
        default: nil
        }
    }

    private static func format(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}

import SwiftASN1
import X509

/// The PKCS#7 (CMS) signature of an app receipt, as its `SignedData` holds it: what `ReceiptSignatureVerifier`
/// checks before anything in the receipt is believed.
package struct AppReceiptSignature: Sendable, Equatable {
    /// The certificates the receipt carries (Apple's: the signing leaf, the WWDR intermediate and the root).
    package var certificates: [Certificate]
    /// The signer's certificate issuer (`SignerInfo.sid`, an `IssuerAndSerialNumber`).
    package var signerIssuer: DistinguishedName
    /// The signer's certificate serial number.
    package var signerSerialNumber: Certificate.SerialNumber
    /// `SignerInfo.digestAlgorithm`'s OID (SHA-1 in receipts until 2025-01-24, SHA-256 since).
    package var digestAlgorithm: ASN1ObjectIdentifier
    /// `SignerInfo.signatureAlgorithm`'s OID: Apple writes `rsaEncryption`, other signers `sha…WithRSAEncryption`.
    package var signatureAlgorithm: ASN1ObjectIdentifier
    /// Whether the signer signed attributes rather than the content itself (App Store receipts never do).
    package var hasSignedAttributes: Bool
    /// `SignerInfo.signature`.
    package var signature: [UInt8]
    /// The bytes the signature covers: the receipt content (the value of `eContent`).
    package var signedContent: [UInt8]

    /// The signer's certificate among those the receipt carries, if it is there.
    package var signerCertificate: Certificate? {
        certificates.first { $0.issuer == signerIssuer && $0.serialNumber == signerSerialNumber }
    }
}

import Crypto
import Foundation
import SwiftASN1
@_spi(CMS) import X509
import _CryptoExtras

/// A throwaway RSA certificate chain shaped like the one Apple signs app receipts with: root CA (like Apple Inc.
/// Root) → intermediate (like Apple Worldwide Developer Relations, with Apple's marker `1.2.840.113635.100.6.2.1`)
/// → signing leaf (like "Mac App Store and iTunes Store Receipt Signing", with `1.2.840.113635.100.6.11.1`).
/// ``AppReceiptBuilder`` signs receipts with its leaf as PKCS#7 `SignedData`; a daemon given ``rootPEM`` as
/// `APPLE_RECEIPT_ROOT_CA_FILE` accepts them.
package struct AppleReceiptTestChain: Sendable {
    /// The self-signed root CA.
    package let root: Certificate
    /// The intermediate CA, signed by the root.
    package let intermediate: Certificate
    /// The signing certificate, signed by the intermediate.
    package let leaf: Certificate
    /// The leaf's key: it signs every receipt built with this chain.
    let leafKey: _RSA.Signing.PrivateKey

    /// One chain for the whole process, valid from yesterday for ten years: RSA keys take a while to generate, and
    /// every stand-in and builder that is given no other chain uses this one.
    package static let shared: AppleReceiptTestChain = {
        do {
            return try generate()
        } catch {
            // Fixed names, fresh RSA keys and in-range dates: generation cannot fail.
            preconditionFailure("AppleReceiptTestChain failed to generate: \(error)")
        }
    }()

    /// Generates fresh 2048-bit RSA keys and certificates, all valid over the same period (a past one makes a
    /// chain that was valid when a receipt was made and has expired since).
    ///
    /// Setting `intermediateHasAppleOID` or `leafHasAppleOID` to `false` leaves that marker out.
    package static func generate(
        notValidBefore: Date = Date() - 86_400,
        notValidAfter: Date = Date() + 10 * 365 * 86_400,
        intermediateHasAppleOID: Bool = true,
        leafHasAppleOID: Bool = true
    ) throws -> AppleReceiptTestChain {
        let leafKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let chain = try AppleShapedChain(
            keys: (
                Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048)),
                Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048)), Certificate.PrivateKey(leafKey)
            ),
            names: (
                "receiptd test receipt root", "receiptd test receipt intermediate", "receiptd test receipt signing"
            ),
            signatureAlgorithm: .sha256WithRSAEncryption,
            validity: (notValidBefore, notValidAfter),
            intermediateHasAppleOID: intermediateHasAppleOID,
            leafHasAppleOID: leafHasAppleOID
        )
        return AppleReceiptTestChain(
            root: chain.root,
            intermediate: chain.intermediate,
            leaf: chain.leaf,
            leafKey: leafKey
        )
    }

    private init(root: Certificate, intermediate: Certificate, leaf: Certificate, leafKey: _RSA.Signing.PrivateKey) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafKey = leafKey
    }

    /// The root certificate as PEM: what the daemon is told to trust as `APPLE_RECEIPT_ROOT_CA_FILE`.
    package var rootPEM: String {
        do {
            return try root.serializeAsPEM().pemString
        } catch {
            // A certificate this type made always serializes.
            preconditionFailure("the receipt test root does not serialize: \(error)")
        }
    }

    /// Writes ``rootPEM`` to `path`, replacing any file there.
    package func writeRoot(toFile path: String) throws {
        try Data(rootPEM.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// `content` in a DER PKCS#7 `ContentInfo` of type signedData: the content attached, signed with the leaf's key
    /// (RSA PKCS#1 v1.5, SHA-256, no signed attributes, as Apple signs receipts), carrying leaf, intermediate and root.
    package func sign(_ content: [UInt8]) throws -> [UInt8] {
        try CMS.sign(
            content,
            signatureAlgorithm: .sha256WithRSAEncryption,
            additionalIntermediateCertificates: [intermediate, root],
            certificate: leaf,
            privateKey: Certificate.PrivateKey(leafKey),
            signingTime: nil,
            detached: false
        )
    }
}

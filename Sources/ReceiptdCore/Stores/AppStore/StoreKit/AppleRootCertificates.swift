import SwiftASN1
import X509

/// Trust anchors for signed transactions and app receipts.
package enum AppleRootCertificates {
    /// Apple Root CA - G3, as the project ships it (SHA-256 fingerprint
    /// `63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79`).
    package static let rootG3: Certificate = {
        do {
            return try Certificate(pemEncoded: String(decoding: PackageResources.AppleRootCA_G3_pem, as: UTF8.self))
        } catch {
            preconditionFailure("the shipped Apple Root CA - G3 does not parse: \(error)")
        }
    }()

    /// Apple Inc. Root, the RSA root app receipts are signed under, as the project ships it (SHA-256 fingerprint
    /// `B0:B1:73:0E:CB:C7:FF:45:05:14:2C:49:F1:29:5E:6E:DA:6B:CA:ED:7E:2C:68:C5:BE:91:B5:A1:10:01:F0:24`).
    package static let appleIncRoot: Certificate = {
        do {
            return try Certificate(
                pemEncoded: String(decoding: PackageResources.AppleIncRootCertificate_pem, as: UTF8.self)
            )
        } catch {
            preconditionFailure("the shipped Apple Inc. Root does not parse: \(error)")
        }
    }()

    /// Every certificate in a PEM text (`APPLE_ROOT_CA_FILE` and `APPLE_RECEIPT_ROOT_CA_FILE` may hold several roots).
    package static func certificates(pem: String) throws -> [Certificate] {
        let certificates = try PEMDocument.parseMultiple(pemString: pem).map { try Certificate(pemDocument: $0) }
        guard !certificates.isEmpty else { throw PEMError.noCertificate }
        return certificates
    }

    /// A PEM text with no certificate in it.
    package enum PEMError: Error, CustomStringConvertible {
        /// Nothing between `BEGIN CERTIFICATE` and `END CERTIFICATE`.
        case noCertificate

        /// Says what is wrong.
        package var description: String { "no certificate in it" }
    }
}

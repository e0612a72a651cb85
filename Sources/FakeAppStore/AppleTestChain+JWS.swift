import Crypto
import Foundation
import ReceiptdCore

extension AppleTestChain {
    /// Signs `payload` as a compact JWS the way Apple signs StoreKit 2 data:
    /// header `{"alg":"ES256","x5c":[leaf, intermediate, root]}`, ES256 with the leaf's key.
    ///
    /// `x5c` replaces the header's chain (DER certificates, leaf first), so a test can
    /// present a chain that does not match the signing key or does not lead to the trusted root.
    package func sign(payload: Data, x5c: [[UInt8]]? = nil) -> String {
        // RFC 7515 §4.1.6: x5c entries are standard base64, which needs no JSON escaping.
        let chain = (x5c ?? [leafDER, intermediateDER, rootDER]).map { "\"\(Data($0).base64EncodedString())\"" }
        let header = "{\"alg\":\"ES256\",\"x5c\":[\(chain.joined(separator: ","))]}"
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(payload)
        do {
            let signature = try leafKey.signature(for: Data(signingInput.utf8))
            // JWS wants ES256 signatures as raw r||s, not DER.
            return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        } catch {
            // BoringSSL only fails to sign on allocation failure.
            preconditionFailure("ES256 signing failed: \(error)")
        }
    }

    /// `signedTransactionInfo` for `payload`: its JSON signed with ``sign(payload:x5c:)``.
    package func signedTransaction(_ payload: SignedTransactionPayload) -> String {
        sign(payload: payload.encodedJSON())
    }

    /// `signedRenewalInfo` for `payload`: its JSON signed with ``sign(payload:x5c:)``.
    package func signedRenewalInfo(_ payload: RenewalInfoPayload) -> String {
        sign(payload: payload.encodedJSON())
    }
}

extension AppleTestChain {
    /// A notification's `signedPayload`: its JSON signed with ``sign(payload:x5c:)``.
    package func signedNotification(_ payload: AppleNotificationPayload) -> String {
        sign(payload: payload.encodedJSON())
    }

    /// The body Apple posts: `{"signedPayload": "<JWS>"}`.
    package func notificationBody(_ payload: AppleNotificationPayload) -> Data {
        Data("{\"signedPayload\":\"\(signedNotification(payload))\"}".utf8)
    }
}

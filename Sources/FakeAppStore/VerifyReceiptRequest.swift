import Foundation
import NIOCore

/// The fields of a verifyReceipt request body that the stand-in cares about.
///
/// Every field is `nil` when the body is not a JSON object.
struct VerifyReceiptRequest {
    /// `receipt-data`; `nil` means Apple's 21000.
    let receiptData: String?
    /// `password` (the app's shared secret).
    let password: String?
    /// `exclude-old-transactions`.
    let excludeOldTransactions: Bool?

    /// Parses a request body, leniently.
    init(body: ByteBuffer?) {
        let fields = body.flatMap(Self.jsonObject(in:)) ?? [:]
        receiptData = fields["receipt-data"] as? String
        password = fields["password"] as? String
        excludeOldTransactions = fields["exclude-old-transactions"] as? Bool
    }

    private static func jsonObject(in body: ByteBuffer) -> [String: Any]? {
        let data = Data(body.readableBytesView)
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}

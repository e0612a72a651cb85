import Foundation

/// The fields of a signed app transaction's payload (`AppTransaction`, `JWSAppTransactionDecodedPayload`) that
/// receiptd reads: the proof that a player's copy of the app was obtained from the App Store, as
/// `RESCIND_CONSENT`'s `appData.signedAppTransactionInfo` carries it.
package struct SignedAppTransaction: Sendable, Equatable {
    /// `appTransactionId`: the app's download, the same across the player's devices and reinstalls.
    package var appTransactionID: String
    /// `bundleId`.
    package var bundleID: String
    /// `receiptType` as signed: `Production`, `Sandbox`, or one the App Store does not sign (`Xcode`, …).
    package var environment: String
    /// When the App Store signed it (`receiptCreationDate`, Apple's "signed date" of an app transaction), the
    /// instant the chain must be valid at; nil when it does not say.
    package var signedDate: Date?

    /// Reads a payload.
    package init(json: Data) throws(SignedTransaction.FormatError) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let fields = object as? [String: Any] else {
            throw SignedTransaction.FormatError(description: "not a JSON object")
        }
        func string(_ key: String) throws(SignedTransaction.FormatError) -> String {
            guard let value = fields[key] as? String, !value.isEmpty else {
                throw SignedTransaction.FormatError(description: "\(key) is missing")
            }
            return value
        }
        appTransactionID = try string("appTransactionId")
        bundleID = try string("bundleId")
        environment = try string("receiptType")
        signedDate = (FlexibleJSON.integer(fields["receiptCreationDate"]) ?? FlexibleJSON.integer(fields["signedDate"]))
            .flatMap { $0 >= 0 ? Date(timeIntervalSince1970: Double($0) / 1000) : nil }
    }
}

import Foundation
import ReceiptdCore

/// The stand-in's Get Transaction History `revision`: opaque to clients (base64url), an offset into the history
/// for the stand-in.
enum HistoryRevision {
    private static let prefix = "history-offset:"

    /// The token for the page starting at `offset`.
    static func token(offset: Int) -> String {
        Base64URL.encode(Data((prefix + String(offset)).utf8))
    }

    /// The offset `token` stands for; `nil` when the stand-in did not make it.
    static func offset(_ token: String) -> Int? {
        guard let text = Base64URL.decode(token).map({ String(decoding: $0, as: UTF8.self) }), text.hasPrefix(prefix),
            let offset = Int(text.dropFirst(prefix.count)), offset >= 0
        else { return nil }
        return offset
    }
}

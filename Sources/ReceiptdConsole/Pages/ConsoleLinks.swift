import ReceiptdCore

/// The console's URLs with their values percent-encoded: an id may hold any character (`&`, `#`, spaces,
/// quotes), and each one must come back as it was. Links are written into HTML through `HTML`, which escapes
/// them once more for the attribute.
package enum ConsoleLinks {
    /// The player page of `userID`.
    package static func player(_ userID: String) -> String {
        "/player?id=\(encode(userID))"
    }

    /// The order page of `orderID`, with an action's result as its flash message.
    package static func order(_ orderID: String, flash: String? = nil) -> String {
        "/order?id=\(encode(orderID))" + (flash.map { "&flash=\(encode($0))" } ?? "")
    }

    /// The unclaimed payments page showing the payment `transactionID` (assigned or not).
    package static func unclaimedPayment(_ transactionID: String) -> String {
        "/unclaimed?state=all&transaction_id=\(encode(transactionID))"
    }

    /// `path` with a flash message.
    package static func withFlash(_ path: String, _ flash: String) -> String {
        path + (path.contains("?") ? "&" : "?") + "flash=\(encode(flash))"
    }

    /// The page a search hit opens.
    package static func hit(_ hit: SearchHit) -> String {
        switch hit.kind {
        case .player: player(hit.id)
        case .order: order(hit.id)
        case .unclaimedPayment: unclaimedPayment(hit.id)
        }
    }

    /// `value` as a query value: every byte but ASCII letters, digits and `-._~` as `%XX` (so `+`, `&`, `=`,
    /// `#` and spaces survive any form decoder).
    package static func encode(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return encoded
    }
}

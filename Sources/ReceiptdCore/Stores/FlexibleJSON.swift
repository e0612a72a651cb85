import Foundation

/// Reads JSON values that Apple sends sometimes as strings, sometimes as numbers.
enum FlexibleJSON {
    /// A string, or an integral number written in decimal.
    static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String: return text
        case let number as NSNumber where !isBoolean(number): return integer(number).map(String.init)
        default: return nil
        }
    }

    /// An integer from a number or a decimal string; `nil` for fractions, booleans and anything else.
    static func integer(_ value: Any?) -> Int64? {
        switch value {
        case let text as String: return Int64(text.trimmingCharacters(in: .whitespaces))
        case let number as NSNumber where !isBoolean(number):
            let double = number.doubleValue
            guard double.rounded() == double, abs(double) < 9.0e18 else { return nil }
            return number.int64Value
        default: return nil
        }
    }

    /// A boolean from `true`/`false`, `"true"`/`"false"` or 1/0.
    static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let number as NSNumber: return number.boolValue
        case let text as String:
            switch text.lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    /// True for a value that is there and not `null` or an empty string.
    static func isPresent(_ value: Any?) -> Bool {
        switch value {
        case nil, is NSNull: return false
        case let text as String: return !text.isEmpty
        default: return true
        }
    }

    /// True when `number` is a JSON boolean, not a number.
    static func isBoolean(_ number: NSNumber) -> Bool {
        // On Linux a JSON true/false arrives as an NSNumber whose type encoding is "c" (char) or "B".
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }
}

/// RFC 3339 times as Google writes them (`2025-07-01T10:00:00Z`, up to nine fractional digits, or an offset such
/// as `+05:30`), read and written in milliseconds since 1970 by hand: a `DateFormatter` per purchase cost a
/// Google lookup more than its HTTP call.
package enum RFC3339 {
    /// `text` in milliseconds since 1970 (fractions beyond milliseconds cut); `nil` when it is not RFC 3339.
    package static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x74,
            bytes[13] == 0x3A, bytes[16] == 0x3A,
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
            let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
            (1...12).contains(month), (1...daysIn(month, year)).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if bytes[index] == 0x2E {
            index += 1
            var digits = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                if digits < 3 { millis = millis * 10 + Int64(bytes[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        guard index < bytes.count else { return nil }
        var offsetMinutes: Int64 = 0
        switch bytes[index] {
        case 0x5A, 0x7A:
            guard index + 1 == bytes.count else { return nil }
        case 0x2B, 0x2D:
            guard index + 6 == bytes.count, bytes[index + 3] == 0x3A, let hours = number(bytes, index + 1, 2),
                let minutes = number(bytes, index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offsetMinutes = (hours * 60 + minutes) * (bytes[index] == 0x2D ? -1 : 1)
        default:
            return nil
        }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1000 + millis
    }

    /// `milliseconds` since 1970 in UTC, with milliseconds: `2025-07-01T10:00:00.000Z`.
    package static func string(milliseconds: Int64) -> String {
        let (days, rest) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, inDay) = rest < 0 ? (days - 1, rest + 86_400_000) : (days, rest)
        // Civil from days (H. Hinnant's algorithm).
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))T\(pad(inDay / 3_600_000, 2)):"
            + "\(pad(inDay / 60_000 % 60, 2)):\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
    }

    /// The `count` decimal digits at `start`, or `nil` when any is not a digit.
    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for byte in bytes[start..<(start + count)] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    private static func daysIn(_ month: Int64, _ year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a civil date (H. Hinnant's algorithm).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

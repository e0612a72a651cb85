import Foundation

/// Reads an HTTP `Retry-After` header: delta seconds or an HTTP date.
enum RetryAfter {
    /// The wait from `now`, never negative; `nil` when the header cannot be read.
    static func delay(from header: String, now: Date = Date()) -> Duration? {
        let text = header.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds.isFinite { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }
}

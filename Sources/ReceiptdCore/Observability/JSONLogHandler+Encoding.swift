import Foundation

extension JSONLogHandler {
    /// `2025-01-31T12:00:00.123Z`: UTC, milliseconds, what log pipelines parse without configuration.
    static func iso8601(_ date: Date) -> String {
        // Via whole microseconds: a Double holding .123 may really hold .12299999.
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let totalMilliseconds = microseconds.floorDivided(by: 1000)
        var seconds = time_t(totalMilliseconds.floorDivided(by: 1000))
        let milliseconds = Int(totalMilliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
            + ".\(pad(milliseconds, 3))Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

extension Int64 {
    /// Division rounding towards minus infinity, so dates before 1970 still get 0…999 milliseconds.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}

/// Seconds as people read them in tables: `41s`, `12m 5s`, `3h 2m`, `2d 4h`.
enum HumanDuration {
    /// The two largest units of `seconds`; `nil` stays `nil`.
    static func text(_ seconds: Int?) -> String? {
        guard let seconds else { return nil }
        let units = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        guard seconds >= 60 else { return "\(seconds)s" }
        var rest = seconds
        var parts: [String] = []
        for (name, size) in units where parts.count < 2 {
            let count = rest / size
            if count > 0 || !parts.isEmpty {
                parts.append("\(count)\(name)")
                rest -= count * size
            }
        }
        return parts.joined(separator: " ")
    }
}

import Foundation

extension KeyedDecodingContainer {
    /// An integer sent as a JSON number or as a decimal string (Google writes its int64 fields as strings);
    /// `nil` when absent, `null`, a fraction or anything else, so one odd field never makes a whole answer unreadable.
    func flexibleInteger(forKey key: Key) -> Int64? {
        if let number = try? decodeIfPresent(Int64.self, forKey: key) { return number }
        if let text = try? decodeIfPresent(String.self, forKey: key) {
            return Int64(text.trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}

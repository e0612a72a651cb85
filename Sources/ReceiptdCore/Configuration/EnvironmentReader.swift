import Foundation
import Logging

/// Reads and checks typed values from environment variables; an empty value counts as unset.
struct EnvironmentReader {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    func string(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    func integer(_ name: String, minimum: Int) throws(ConfigurationError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not a whole number")
        }
        guard value >= minimum else { throw ConfigurationError(variable: name, problem: "must be at least \(minimum), got \(value)") }
        return value
    }

    /// A non-negative number of seconds (fractions allowed); `positive` also rejects zero.
    func seconds(_ name: String, positive: Bool = false) throws(ConfigurationError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not a number of seconds")
        }
        guard value >= 0 else { throw ConfigurationError(variable: name, problem: "must not be negative, got \(text)") }
        guard !positive || value > 0 else { throw ConfigurationError(variable: name, problem: "must be greater than 0") }
        return value
    }

    func url(_ name: String) throws(ConfigurationError) -> String? {
        guard let text = string(name) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not an http or https URL")
        }
        return text
    }

    func logLevel(_ name: String) throws(ConfigurationError) -> Logger.Level? {
        guard let text = string(name) else { return nil }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let allowed = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not one of \(allowed)")
        }
        return level
    }
}

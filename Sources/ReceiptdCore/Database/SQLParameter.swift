/// A value that can be bound to a `$n` parameter, sent to the server as text.
package protocol SQLParameter: Sendable {
    /// The text form PostgreSQL parses for the parameter's type, or `nil` for NULL.
    var sqlText: String? { get }
}

extension String: SQLParameter {
    /// The string itself.
    package var sqlText: String? { self }
}

extension Int: SQLParameter {
    /// The decimal form.
    package var sqlText: String? { String(self) }
}

extension Int64: SQLParameter {
    /// The decimal form.
    package var sqlText: String? { String(self) }
}

extension Double: SQLParameter {
    /// The decimal form PostgreSQL reads for `float8` and `numeric`.
    package var sqlText: String? { String(self) }
}

extension Bool: SQLParameter {
    /// `true` or `false`.
    package var sqlText: String? { self ? "true" : "false" }
}

extension Optional: SQLParameter where Wrapped: SQLParameter {
    /// The wrapped value's text, or NULL.
    package var sqlText: String? { self?.sqlText }
}

extension Array: SQLParameter where Element == Int64 {
    /// The array literal PostgreSQL reads for `bigint[]`, e.g. `{1,2,3}`.
    package var sqlText: String? { "{" + map(String.init).joined(separator: ",") + "}" }
}

/// A configuration value that cannot be used; the message names the variable, never a secret's value.
package struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The environment variable at fault.
    package var variable: String
    /// What is wrong with it.
    package var problem: String

    /// Creates an error.
    package init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }

    /// "VARIABLE: problem".
    package var description: String { "\(variable): \(problem)" }
}

/// A configuration value that cannot be used; the message names the variable, never a secret's value.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The environment variable at fault.
    public var variable: String
    /// What is wrong with it.
    public var problem: String

    /// Creates an error.
    public init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }

    /// "VARIABLE: problem".
    public var description: String { "\(variable): \(problem)" }
}

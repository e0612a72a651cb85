/// A load run, mix or benchmark that could not be carried out (bad input, database trouble).
package struct LoadError: Error, CustomStringConvertible, Equatable {
    /// What went wrong.
    package var description: String
    init(_ description: String) { self.description = description }
}

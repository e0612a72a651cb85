/// A tool run (demo, chaos, benchmark) that could not be carried out, as opposed to one that found violations.
package struct ToolError: Error, CustomStringConvertible {
    /// What went wrong.
    package var description: String
    init(_ description: String) { self.description = description }
}

/// A tool run (demo, chaos, benchmark) that could not be carried out, as opposed to one that found violations.
public struct ToolError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    init(_ description: String) { self.description = description }
}

extension BenchmarkRun {
    /// Writes the report's PNG plot; returns a note when there is none (gnuplot missing or failing).
    package static func writePlot(_ report: BenchmarkReport, to path: String) async throws -> String? {
        try await BenchmarkPlot.write(report, to: path)
    }
}

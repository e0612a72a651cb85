extension BenchmarkRun {
    /// Writes the report's PNG plots; returns notes when one is not written (gnuplot missing or failing). The
    /// scenarios' plot goes to `path`, the plot of the rows at a successful game's size to `path` too when they are
    /// all the report holds (`--size-only`), else beside it, `-size` added to its name.
    package static func writePlot(_ report: BenchmarkReport, to path: String) async throws -> [String] {
        guard report.gameSize != nil else { return [try await BenchmarkPlot.write(report, to: path)].compactMap { $0 } }
        guard !report.scenarios.isEmpty else {
            return [try await BenchmarkPlot.writeSize(report, to: path)].compactMap { $0 }
        }
        return [
            try await BenchmarkPlot.write(report, to: path),
            try await BenchmarkPlot.writeSize(report, to: sizePlotPath(besides: path)),
        ].compactMap { $0 }
    }

    /// `bench.png` → `bench-size.png`; a path without an extension gains `-size.png`.
    package static func sizePlotPath(besides path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path + "-size.png" }
        return path[..<dot] + "-size" + path[dot...]
    }
}

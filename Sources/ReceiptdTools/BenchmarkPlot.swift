import Foundation

/// PNG bar charts, drawn by gnuplot when it is installed: throughput per scenario, and the rows at a successful
/// game's size against their goals.
enum BenchmarkPlot {
    /// Where gnuplot is, if it is installed.
    private static var gnuplot: String? {
        ["/usr/bin/gnuplot", "/usr/local/bin/gnuplot"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Why no plot is written when gnuplot is missing.
    private static let missing = "gnuplot is not installed (apt-get install gnuplot-nox); no plot written"

    /// Writes the plot to `path`; returns why not when gnuplot is missing or fails.
    static func write(_ report: BenchmarkReport, to path: String) async throws -> String? {
        guard let gnuplot else { return missing }
        let latencies = Array(Set(report.scenarios.map(\.appleLatencyMilliseconds))).sorted()
        let daemonCounts = Array(Set(report.scenarios.map(\.daemons))).sorted()
        var data = "daemons " + latencies.map { "\"Apple \($0) ms\"" }.joined(separator: " ") + "\n"
        for count in daemonCounts {
            let values = latencies.map { latency in
                report.scenarios.first {
                    $0.daemons == count && $0.appleLatencyMilliseconds == latency && $0.build == "this"
                }?.ordersPerSecond ?? 0
            }
            data += "\(count) " + values.map { String(format: "%.1f", $0) }.joined(separator: " ") + "\n"
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-plot-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataPath = folder.appendingPathComponent("data.txt").path
        try data.write(toFile: dataPath, atomically: true, encoding: .utf8)
        let ceiling =
            report.ceiling.map {
                "set arrow from graph 0, first \($0.jobsPerSecond) to graph 1, first \($0.jobsPerSecond) nohead dt 2\n"
                    + "set label 'database ceiling' at graph 0.02, first \($0.jobsPerSecond) offset 0,0.7\n"
            } ?? ""
        // Room for the ceiling line, which is usually far above the bars.
        let top = max(report.scenarios.map(\.ordersPerSecond).max() ?? 1, report.ceiling?.jobsPerSecond ?? 0) * 1.15
        let script = """
            set terminal png size 900,520 noenhanced
            set output '\(path.replacingOccurrences(of: "'", with: ""))'
            set title 'receiptd throughput (orders/s, enqueue to outcome), \(report.orders) orders per scenario'
            set style data histograms
            set style histogram clustered gap 1
            set style fill solid 0.8 border -1
            set xlabel 'daemon processes (1,024 requests in flight in total)'
            set ylabel 'orders/s'
            set yrange [0:\(Int(top.rounded(.up)))]
            set key top left
            \(ceiling)plot for [i=2:\(latencies.count + 1)] '\(dataPath)' using i:xtic(1) title columnheader(i)
            """
        return try await run(gnuplot, script: script, in: folder)
    }

    /// Writes the plot of the rows at a successful game's size to `path`: each figure as a share of its goal (1 or
    /// more meets it), this build's bars beside the build before's; returns why not when there is nothing to draw
    /// or gnuplot is missing or fails.
    static func writeSize(_ report: BenchmarkReport, to path: String) async throws -> String? {
        guard let size = report.gameSize else { return "no rows at a successful game's size; no plot written" }
        guard let gnuplot else { return missing }
        let before = report.gameSizeBaseline?.goalShares
        var data = "path" + (before == nil ? "" : " \"the build before\"") + " \"this build\"\n"
        for share in size.goalShares {
            let baseline = before.map { shares in
                String(format: " %.3f", shares.first { $0.path == share.path }?.share ?? 0)
            }
            data += "\"\(share.path)\"" + (baseline ?? "") + String(format: " %.3f", share.share) + "\n"
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-plot-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataPath = folder.appendingPathComponent("size.txt").path
        try data.write(toFile: dataPath, atomically: true, encoding: .utf8)
        // Shares span orders of magnitude (a login read of seconds against 3 ms), so the axis is logarithmic.
        let script = """
            set terminal png size 1000,640 noenhanced
            set output '\(path.replacingOccurrences(of: "'", with: ""))'
            set title 'receiptd at \(size.subscriptions) subscriptions: each figure against its goal'
            set xtics rotate by -30 left
            set bmargin 10
            set rmargin 14
            set style data histograms
            set style histogram clustered gap 1
            set style fill solid 0.8 border -1
            set logscale y
            set ylabel 'share of the goal (1 or more meets it)'
            set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
            set label 'goal' at graph 0.02, first 1 offset 0,0.7
            set key top left
            plot for [i=2:\(before == nil ? 2 : 3)] '\(dataPath)' using i:xtic(1) title columnheader(i)
            """
        return try await run(gnuplot, script: script, in: folder)
    }

    /// Runs gnuplot on `script`, kept in `folder`; returns why it failed, if it did.
    private static func run(_ gnuplot: String, script: String, in folder: URL) async throws -> String? {
        let scriptPath = folder.appendingPathComponent("plot.gp").path
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gnuplot)
        process.arguments = [scriptPath]
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        return process.terminationStatus == 0 ? nil : "gnuplot failed with status \(process.terminationStatus)"
    }
}

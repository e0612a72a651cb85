import Foundation

/// A PNG bar chart of throughput per scenario, drawn by gnuplot when it is installed.
enum BenchmarkPlot {
    /// Writes the plot to `path`; returns why not when gnuplot is missing or fails.
    static func write(_ report: BenchmarkReport, to path: String) async throws -> String? {
        let candidates = ["/usr/bin/gnuplot", "/usr/local/bin/gnuplot"]
        guard let gnuplot = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return "gnuplot is not installed (apt-get install gnuplot-nox); no plot written"
        }
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

import Foundation
import ReceiptdTestKit
import Testing

/// Whether the browser tests run: with Debian's `chromium` and `chromium-driver` installed, always; without them,
/// they are skipped on a developer's machine and fail under CI (`CI=true`), which installs both (`.ci/run`).
enum BrowserAvailability {
    /// `CI=true` (or `1`), as CI services set it.
    static var isCI: Bool { ["true", "1"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "") }

    /// Run the suite: the programs are there, or CI must find out that they are not.
    static var shouldRun: Bool { ChromeDriver.isAvailable || isCI }

    /// Why the suite was skipped.
    static let skipped = Comment(
        rawValue: "skipped: \(ChromeDriver.browserPath) or \(ChromeDriver.driverPath) is missing "
            + "(apt-get install chromium chromium-driver); CI=true makes this a failure"
    )

    /// Fails the test under CI when the programs are missing.
    static func require() throws {
        try #require(
            ChromeDriver.isAvailable,
            "CI=true, but \(ChromeDriver.browserPath) or \(ChromeDriver.driverPath) is missing: .ci/run installs them"
        )
    }
}

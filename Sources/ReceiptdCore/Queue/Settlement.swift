/// How a verified answer was settled: the recording, and the plan it wrote when it was written.
package struct Settlement: Sendable {
    /// How the answer was written.
    package var recording: JobRecording
    /// What it delivered; `nil` when it wrote nothing.
    package var plan: DeliveryPlan?
}

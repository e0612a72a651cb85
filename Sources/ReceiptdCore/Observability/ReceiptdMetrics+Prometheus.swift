import CoreMetrics
import Prometheus
import Synchronization

extension ReceiptdMetrics {
    /// A Prometheus factory on `registry`, with the buckets these metrics need.
    package static func prometheusFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Name.appleRequestDuration] = appleRequestBuckets
        return factory
    }

    /// Bootstraps `MetricsSystem` with Prometheus the first time it is called in a process and returns
    /// the registry that `/metrics` serves; later calls return the same registry.
    ///
    /// swift-metrics allows one bootstrap per process, hence the latch. Tests use
    /// `ReceiptdMetrics(factory: prometheusFactory(registry:))` with a registry of their own instead.
    package static func bootstrapPrometheus() -> PrometheusCollectorRegistry {
        bootstrapped.withLock { registry in
            if let registry { return registry }
            let created = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(prometheusFactory(registry: created))
            registry = created
            return created
        }
    }

    private static let bootstrapped = Mutex<PrometheusCollectorRegistry?>(nil)
}

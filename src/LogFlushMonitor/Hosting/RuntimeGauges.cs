using System.Diagnostics.Metrics;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The thread pool's thread count and queue length as up-down counters (Prometheus gauges). The runtime's own
/// "System.Runtime" meter publishes both as monotonic counters (dotnet/runtime#112077, #126167), which Prometheus
/// would get as <c>_total</c> counters that go down: TelemetryService drops those two streams and exports these,
/// under the same names and units, instead.
/// </summary>
internal sealed class RuntimeGauges : IDisposable
{
    /// <summary>Meter of the replacement instruments.</summary>
    public const string MeterName = "LogFlushMonitor.Runtime";

    /// <summary>Thread pool threads that currently exist.</summary>
    public const string ThreadCount = "dotnet.thread_pool.thread.count";

    /// <summary>Work items currently queued to the thread pool.</summary>
    public const string QueueLength = "dotnet.thread_pool.queue.length";

    private readonly Meter _meter = new(MeterName);

    public RuntimeGauges()
    {
        _meter.CreateObservableUpDownCounter(ThreadCount, () => (long)ThreadPool.ThreadCount, "{thread}", "The number of thread pool threads that currently exist.");
        _meter.CreateObservableUpDownCounter(QueueLength, () => ThreadPool.PendingWorkItemCount, "{work_item}", "The number of work items that are currently queued to be processed by the thread pool.");
    }

    /// <summary>A view that drops the runtime's two mistyped thread pool instruments (replaced by ours).</summary>
    public static OpenTelemetry.Metrics.MetricStreamConfiguration? DropMistypedRuntimeInstruments(Instrument instrument) =>
        instrument.Meter.Name == "System.Runtime" && instrument.Name is ThreadCount or QueueLength
            ? OpenTelemetry.Metrics.MetricStreamConfiguration.Drop
            : null;

    public void Dispose() => _meter.Dispose();
}

using System.Diagnostics.Metrics;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The thread pool's thread count and queue length as up-down counters (Prometheus gauges). The runtime's own
/// "System.Runtime" meter publishes both as monotonic counters (dotnet/runtime#112077, #126167), which Prometheus
/// would get as <c>_total</c> counters that go down: TelemetryService drops those two streams and exports these
/// instead. The thread count is named <c>dotnet.thread_pool.threads</c>: a Prometheus name ending in <c>_count</c> reads
/// as a histogram's count (promtool check metrics rejects it), which is also why the runtime's assembly, timer and CPU
/// counts are dropped (they say nothing about the monitor's health that the other series do not).
/// </summary>
internal sealed class RuntimeGauges : IDisposable
{
    /// <summary>Meter of the replacement instruments.</summary>
    public const string MeterName = "LogFlushMonitor.Runtime";

    /// <summary>Thread pool threads that currently exist (the runtime's mistyped dotnet.thread_pool.thread.count).</summary>
    public const string Threads = "dotnet.thread_pool.threads";

    /// <summary>Work items currently queued to the thread pool.</summary>
    public const string QueueLength = "dotnet.thread_pool.queue.length";

    /// <summary>Log events the Log:File sink could not write (<see cref="LogFileFailures"/>).</summary>
    public const string LogFailures = "sqlserver.monitor.log.failures";

    private readonly Meter _meter = new(MeterName);

    public RuntimeGauges(LogFileFailures? logFailures = null)
    {
        if (logFailures is not null)
        {
            _meter.CreateObservableCounter(LogFailures, () => logFailures.Lost, "{event}", "Log events the Log:File sink could not write (a full disk, a removed directory); each failure is also said on stderr.");
        }

        _meter.CreateObservableUpDownCounter(Threads, () => (long)ThreadPool.ThreadCount, "{thread}", "The number of thread pool threads that currently exist.");
        _meter.CreateObservableUpDownCounter(QueueLength, () => ThreadPool.PendingWorkItemCount, "{work_item}", "The number of work items that are currently queued to be processed by the thread pool.");
    }

    /// <summary>
    /// A view that drops the runtime's instruments we replace (the mistyped thread pool ones) or leave out (those whose
    /// Prometheus name would end in <c>_count</c>).
    /// </summary>
    public static OpenTelemetry.Metrics.MetricStreamConfiguration? DropRuntimeInstruments(Instrument instrument) =>
        instrument.Meter.Name == "System.Runtime" && instrument.Name is "dotnet.thread_pool.thread.count" or QueueLength
            or "dotnet.assembly.count" or "dotnet.timer.count" or "dotnet.process.cpu.count"
            ? OpenTelemetry.Metrics.MetricStreamConfiguration.Drop
            : null;

    public void Dispose() => _meter.Dispose();
}

using System.Diagnostics;
using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// Every instrument LogFlushMonitor exports, declared once: name, UCUM unit, description. docs/metrics.md
/// lists them with their Prometheus names. Histograms are recorded by the aggregation per event; everything
/// read from the server is observed from the aggregation's state at collection time.
/// </summary>
/// <remarks>
/// Values read from the server's cumulative counters are exported as the increase observed since this
/// process started (restart-safe, see <see cref="CumulativeTracker"/>), which matches the start time the SDK
/// reports for cumulative sums; take rate() or increase() of them.
/// </remarks>
public sealed class LogFlushMetrics : IDisposable
{
    /// <summary>The one Meter's name; an OpenTelemetry MeterProvider adds it with AddMeter(MeterName).</summary>
    public const string MeterName = "LogFlushMonitor";

    /// <summary>Sector-aligned write-size bucket bounds in bytes (512 B sectors up to the 60 KB block).</summary>
    public static readonly IReadOnlyList<long> WriteSizeBuckets = [512, 1024, 2048, 4096, 8192, 16384, 32768, 49152, 61440];

    /// <summary>
    /// Duration bucket bounds in seconds, from sub-millisecond NVMe writes to the 10-15 ms bottleneck line and
    /// beyond. Ten bounds: every bound is a line per database in each scrape.
    /// </summary>
    public static readonly IReadOnlyList<double> DurationBuckets =
        [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1];

    private readonly Meter _meter;
    private LogFlushAggregator? _aggregator;
    private SourceHealth? _health;

    /// <summary>Creates the instruments on a Meter made by <paramref name="meterFactory"/>, or a new Meter.</summary>
    public LogFlushMetrics(IMeterFactory? meterFactory = null)
    {
        var version = typeof(LogFlushMetrics).Assembly.GetName().Version?.ToString(3);
        _meter = meterFactory?.Create(MeterName, version) ?? new Meter(MeterName, version);

        FlushWriteSize = _meter.CreateHistogram(
            "sqlserver.log.flush.write_size",
            unit: "By",
            description: "Size of each log flush (log_flush_start write_size): 512 B flushes mean one flush per small commit, 60 KB ones a full log buffer.",
            tags: null,
            advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = WriteSizeBuckets });
        FlushDuration = _meter.CreateHistogram(
            "sqlserver.log.flush.duration",
            unit: "s",
            description: "Duration of each log flush (log_flush_complete duration).",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DurationBuckets });
        WaitDuration = _meter.CreateHistogram(
            "sqlserver.database.wait.duration",
            unit: "s",
            description: "Duration of each completed wait attributed to a database by wait events (WRITELOG: a commit waiting for its log flush).",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DurationBuckets });

        // Performance counters of the Databases object, by cntr_type (DOMAIN.md §4).
        _meter.CreateObservableCounter("sqlserver.log.flushes", () => Observe(CounterExport.Flushes), "{flush}",
            "Log flushes counted by the server (Log Flushes/sec, cumulative), increase since monitoring began.");
        _meter.CreateObservableCounter("sqlserver.log.flushed.bytes", () => Observe(CounterExport.FlushedBytes), "By",
            "Bytes of log flushed (Log Bytes Flushed/sec, cumulative), increase since monitoring began.");
        _meter.CreateObservableCounter("sqlserver.log.flush.waits", () => Observe(CounterExport.FlushWaits), "{commit}",
            "Commits that waited for a log flush (Log Flush Waits/sec, cumulative), increase since monitoring began.");
        _meter.CreateObservableCounter("sqlserver.log.flush.wait.time", () => ObserveDouble(CounterExport.FlushWaitTime), "s",
            "Time commits waited for log flushes (Log Flush Wait Time, cumulative milliseconds on the server), increase since monitoring began.");
        _meter.CreateObservableGauge("sqlserver.log.usage", () => ObserveDouble(CounterExport.LogUsedRatio), "1",
            "Fraction of the log file in use (Percent Log Used / 100).");
        _meter.CreateObservableGauge("sqlserver.log.used.size", () => Observe(CounterExport.LogUsedBytes), "By",
            "Log space in use (Log File(s) Used Size (KB) x 1024).");
        _meter.CreateObservableGauge("sqlserver.log.size", () => Observe(CounterExport.LogSizeBytes), "By",
            "Size of the log files (Log File(s) Size (KB) x 1024).");
        _meter.CreateObservableCounter("sqlserver.performance.total", () => ObserveDouble(CounterExport.GenericTotal), "{value}",
            "Any other cumulative (BULK_COUNT) counter polled, increase since monitoring began, in the counter's own unit.");
        _meter.CreateObservableGauge("sqlserver.performance.value", () => ObserveDouble(CounterExport.GenericValue), "{value}",
            "Any other point-value (RAWCOUNT) counter polled, in the counter's own unit.");
        _meter.CreateObservableGauge("sqlserver.performance.fraction", () => ObserveDouble(CounterExport.GenericFraction), "1",
            "Any fraction counter polled (RAW_FRACTION / its base), e.g. Log Cache Hit Ratio, as 0..1.");
        _meter.CreateObservableGauge("sqlserver.performance.average", () => ObserveDouble(CounterExport.GenericAverage), "{value}",
            "Any average counter polled (AVERAGE_BULK): delta value / delta base over the last poll interval.");

        // sys.dm_os_wait_stats, instance-wide.
        _meter.CreateObservableCounter("sqlserver.wait.tasks", () => ObserveWaitStats(WaitStatsField.Tasks), "{task}",
            "Completed waits of the wait type on the instance (waiting_tasks_count), increase since monitoring began.");
        _meter.CreateObservableCounter("sqlserver.wait.time", () => ObserveWaitStatsSeconds(WaitStatsField.WaitTime), "s",
            "Time tasks waited on the wait type, signal wait included (wait_time_ms), increase since monitoring began.");
        _meter.CreateObservableCounter("sqlserver.wait.signal.time", () => ObserveWaitStatsSeconds(WaitStatsField.SignalTime), "s",
            "Time between a wait being signalled and the task running (signal_wait_time_ms), increase since monitoring began.");

        // sys.dm_io_virtual_file_stats for log files, per database.
        _meter.CreateObservableCounter("sqlserver.log.file.writes", () => ObserveFileStats(FileStatsField.Writes), "{write}",
            "Writes to the database's log files (num_of_writes), increase since monitoring began.");
        _meter.CreateObservableCounter("sqlserver.log.file.written.bytes", () => ObserveFileStats(FileStatsField.Bytes), "By",
            "Bytes written to the database's log files (num_of_bytes_written), increase since monitoring began.");
        _meter.CreateObservableCounter("sqlserver.log.file.write.stall", () => ObserveFileStatsSeconds(), "s",
            "Time spent waiting for writes to the database's log files (io_stall_write_ms); divide its rate by the writes' rate for the average write latency.");

        // The instance and the monitor itself.
        _meter.CreateObservableGauge("sqlserver.instance.start_time", () => ObserveDouble(CounterExport.InstanceStart), "s",
            "When the instance started (sqlserver_start_time), seconds since the Unix epoch.");
        _meter.CreateObservableCounter("sqlserver.instance.restarts", () => Observe(CounterExport.InstanceRestarts), "{restart}",
            "Instance restarts observed since monitoring began (a new sqlserver_start_time).");
        _meter.CreateObservableCounter("sqlserver.monitor.events", () => Observe(CounterExport.EventsReceived), "{event}",
            "Log-flush and wait events that reached the aggregation.");
        _meter.CreateObservableCounter("sqlserver.monitor.events.lost", () => Observe(CounterExport.EventsLost), "{event}",
            "Events lost before the aggregation, by loss.kind: sequence_gap (event_sequence gaps), channel_full (the pipeline was behind), server_dropped (the server's own count), malformed (unreadable input).");
        _meter.CreateObservableGauge("sqlserver.monitor.events.loss", () => ObserveDouble(CounterExport.EventLossRatio), "1",
            "Fraction of the log flushes the server counted (Log Flushes/sec increase) for which no log_flush_start event arrived, per database, since monitoring began.");
        _meter.CreateObservableGauge("sqlserver.monitor.up", () => _health?.ObserveUp() ?? [], "{status}",
            "1 while a source component of the instance (poller, stream, session) works, 0 after it failed.");
        _meter.CreateObservableGauge("sqlserver.monitor.last_success", () => _health?.ObserveLastSuccess() ?? [], "s",
            "When a source component of the instance last succeeded, seconds since the Unix epoch.");
        _meter.CreateObservableCounter("sqlserver.monitor.errors", () => _health?.ObserveErrors() ?? [], "{error}",
            "Errors of a source component by error.type (login_failed, permission, timeout, disconnected, ...).");
        _meter.CreateObservableGauge("sqlserver.monitor.collection.mode", () => _health?.ObserveModes() ?? [], "{mode}",
            "1 for the collection mode the instance uses now (mode=stream or mode=histogram).");
        _meter.CreateObservableCounter("sqlserver.monitor.fallbacks", () => _health?.ObserveFallbacks() ?? [], "{fallback}",
            "Times an instance fell back from streaming events to the server-side histogram by itself (repeated error 25726).");
    }

    /// <summary>Recorded per log_flush_start event (bytes).</summary>
    public Histogram<long> FlushWriteSize { get; }

    /// <summary>Recorded per log_flush_complete event (seconds).</summary>
    public Histogram<double> FlushDuration { get; }

    /// <summary>Recorded per completed wait event with a database (seconds).</summary>
    public Histogram<double> WaitDuration { get; }

    /// <summary>
    /// Records <paramref name="count"/> flushes of <paramref name="bytes"/> each (a histogram-mode bucket). The SDK's
    /// Histogram has no weighted Record, and no other set of values gives the same count, sum and bucket counts, so
    /// this records the one value <paramref name="count"/> times: exact, allocation-free, and a few tens of
    /// nanoseconds per flush with tags built once (bench/: AggregationBenchmarks.FlushBucket).
    /// </summary>
    internal void RecordWriteSizes(uint bytes, long count, in TagList tags)
    {
        for (long i = 0; i < count; i++)
        {
            FlushWriteSize.Record(bytes, tags);
        }
    }

    /// <summary>Binds the observable instruments to one aggregation (called by its constructor).</summary>
    internal void Attach(LogFlushAggregator aggregator)
    {
        if (Interlocked.CompareExchange(ref _aggregator, aggregator, null) is not null)
        {
            throw new InvalidOperationException("These metrics already observe another aggregation.");
        }
    }

    /// <summary>Binds the health instruments to one registry (called by its constructor).</summary>
    internal void Attach(SourceHealth health)
    {
        if (Interlocked.CompareExchange(ref _health, health, null) is not null)
        {
            throw new InvalidOperationException("These metrics already observe another health registry.");
        }
    }

    /// <inheritdoc />
    public void Dispose() => _meter.Dispose();

    private List<Measurement<long>> Observe(CounterExport kind) => _aggregator?.ObserveLong(kind) ?? [];

    private List<Measurement<double>> ObserveDouble(CounterExport kind) => _aggregator?.ObserveDouble(kind) ?? [];

    private List<Measurement<long>> ObserveWaitStats(WaitStatsField field) => _aggregator?.ObserveWaitStats(field) ?? [];

    private List<Measurement<double>> ObserveWaitStatsSeconds(WaitStatsField field) => _aggregator?.ObserveWaitStatsSeconds(field) ?? [];

    private List<Measurement<long>> ObserveFileStats(FileStatsField field) => _aggregator?.ObserveFileStats(field) ?? [];

    private List<Measurement<double>> ObserveFileStatsSeconds() => _aggregator?.ObserveFileStallSeconds() ?? [];
}

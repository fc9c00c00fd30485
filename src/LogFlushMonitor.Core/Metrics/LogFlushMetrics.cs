using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// The observable instruments, declared once: name, UCUM unit, description. docs/metrics.md lists them with their
/// Prometheus names. Each reads, at collection time, a read-only view: the aggregation
/// (<see cref="IAggregationReadings"/>) for everything read from the server, <see cref="SourceHealth"/> for the
/// monitor's own state. The per-event histograms are in <see cref="EventHistograms"/>.
/// </summary>
/// <remarks>
/// Values read from the server's cumulative counters are exported as the increase observed since this
/// process started (restart-safe, see <see cref="CumulativeTracker"/>), which matches the start time the SDK
/// reports for cumulative sums; take rate() or increase() of them.
/// </remarks>
public sealed class LogFlushMetrics
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

    private readonly IAggregationReadings _aggregation;
    private readonly SourceHealth _health;
    private readonly ExportHealth _exports;

    // One reusable list per family: a scrape of 10 instances x 100 databases reads about 15,000 measurements, and
    // lists grown anew each time put arrays of up to 130 KB on the large object heap, collected only by a full GC.
    private readonly RecycledMeasurements<long>?[] _longBatches = new RecycledMeasurements<long>?[Enum.GetValues<AggregationReading>().Length];
    private readonly RecycledMeasurements<double>?[] _doubleBatches = new RecycledMeasurements<double>?[Enum.GetValues<AggregationReading>().Length];

    /// <summary>Creates the observable instruments on the Meter <paramref name="meterFactory"/> makes (owned and disposed by the factory).</summary>
    public LogFlushMetrics(IMeterFactory meterFactory, IAggregationReadings aggregation, SourceHealth health, ExportHealth? exports = null)
    {
        ArgumentNullException.ThrowIfNull(aggregation);
        ArgumentNullException.ThrowIfNull(health);
        _aggregation = aggregation;
        _health = health;
        _exports = exports ?? new ExportHealth();
        var meter = CreateMeter(meterFactory);

        // Performance counters of the Databases object, by cntr_type (DOMAIN.md §4).
        meter.CreateObservableCounter("sqlserver.log.flushes", () => Long(AggregationReading.LogFlushes), "{flush}",
            "Log flushes counted by the server (Log Flushes/sec, cumulative), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.log.flushed.bytes", () => Long(AggregationReading.LogFlushedBytes), "By",
            "Bytes of log flushed (Log Bytes Flushed/sec, cumulative), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.log.flush.waits", () => Long(AggregationReading.LogFlushWaits), "{commit}",
            "Commits that waited for a log flush (Log Flush Waits/sec, cumulative), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.log.flush.wait.time", () => Double(AggregationReading.LogFlushWaitTime), "s",
            "Time commits waited for log flushes (Log Flush Wait Time, cumulative milliseconds on the server), increase since monitoring began.");
        meter.CreateObservableGauge("sqlserver.log.usage", () => Double(AggregationReading.LogUsage), "1",
            "Fraction of the log file in use (Percent Log Used / 100).");
        meter.CreateObservableGauge("sqlserver.log.used.size", () => Long(AggregationReading.LogUsedSize), "By",
            "Log space in use (Log File(s) Used Size (KB) x 1024).");
        meter.CreateObservableGauge("sqlserver.log.size", () => Long(AggregationReading.LogSize), "By",
            "Size of the log files (Log File(s) Size (KB) x 1024).");
        meter.CreateObservableCounter("sqlserver.performance.total", () => Double(AggregationReading.PerformanceTotal), "{value}",
            "Any other cumulative (BULK_COUNT) counter polled, increase since monitoring began, in the counter's own unit.");
        meter.CreateObservableGauge("sqlserver.performance.value", () => Double(AggregationReading.PerformanceValue), "{value}",
            "Any other point-value (RAWCOUNT) counter polled, in the counter's own unit.");
        meter.CreateObservableGauge("sqlserver.performance.fraction", () => Double(AggregationReading.PerformanceFraction), "1",
            "Any fraction counter polled (RAW_FRACTION / its base), e.g. Log Cache Hit Ratio, as 0..1.");
        meter.CreateObservableGauge("sqlserver.performance.average", () => Double(AggregationReading.PerformanceAverage), "{value}",
            "Any average counter polled (AVERAGE_BULK): delta value / delta base over the last poll interval.");

        // The same counters' _Total instance: the whole SQL Server instance, its internal databases included, so its
        // own instruments rather than a database name a sum over databases would count twice.
        meter.CreateObservableCounter("sqlserver.instance.log.flushes", () => Long(AggregationReading.InstanceLogFlushes), "{flush}",
            "Log flushes of the whole instance, internal databases included (Log Flushes/sec of _Total), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.instance.log.flushed.bytes", () => Long(AggregationReading.InstanceLogFlushedBytes), "By",
            "Bytes of log flushed by the whole instance (Log Bytes Flushed/sec of _Total), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.instance.log.flush.waits", () => Long(AggregationReading.InstanceLogFlushWaits), "{commit}",
            "Commits of the whole instance that waited for a log flush (Log Flush Waits/sec of _Total), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.instance.log.flush.wait.time", () => Double(AggregationReading.InstanceLogFlushWaitTime), "s",
            "Time commits of the whole instance waited for log flushes (Log Flush Wait Time of _Total), increase since monitoring began.");
        meter.CreateObservableGauge("sqlserver.instance.log.used.size", () => Long(AggregationReading.InstanceLogUsedSize), "By",
            "Log space in use on the whole instance (Log File(s) Used Size (KB) of _Total x 1024).");
        meter.CreateObservableGauge("sqlserver.instance.log.size", () => Long(AggregationReading.InstanceLogSize), "By",
            "Size of all log files of the instance (Log File(s) Size (KB) of _Total x 1024).");
        meter.CreateObservableCounter("sqlserver.instance.performance.total", () => Double(AggregationReading.InstancePerformanceTotal), "{value}",
            "_Total of any other cumulative counter polled, increase since monitoring began, in the counter's own unit.");
        meter.CreateObservableGauge("sqlserver.instance.performance.value", () => Double(AggregationReading.InstancePerformanceValue), "{value}",
            "_Total of any other point-value counter polled, in the counter's own unit.");
        meter.CreateObservableGauge("sqlserver.instance.performance.fraction", () => Double(AggregationReading.InstancePerformanceFraction), "1",
            "_Total of any fraction counter polled (RAW_FRACTION / its base), as 0..1.");
        meter.CreateObservableGauge("sqlserver.instance.performance.average", () => Double(AggregationReading.InstancePerformanceAverage), "{value}",
            "_Total of any average counter polled (AVERAGE_BULK): delta value / delta base over the last poll interval.");

        // sys.dm_os_wait_stats, instance-wide.
        meter.CreateObservableCounter("sqlserver.wait.tasks", () => Long(AggregationReading.WaitTasks), "{task}",
            "Completed waits of the wait type on the instance (waiting_tasks_count), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.wait.time", () => Double(AggregationReading.WaitTime), "s",
            "Time tasks waited on the wait type, signal wait included (wait_time_ms), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.wait.signal.time", () => Double(AggregationReading.WaitSignalTime), "s",
            "Time between a wait being signalled and the task running (signal_wait_time_ms), increase since monitoring began.");

        // sys.dm_io_virtual_file_stats for log files, per database.
        meter.CreateObservableCounter("sqlserver.log.file.writes", () => Long(AggregationReading.LogFileWrites), "{write}",
            "Writes to the database's log files (num_of_writes), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.log.file.written.bytes", () => Long(AggregationReading.LogFileWrittenBytes), "By",
            "Bytes written to the database's log files (num_of_bytes_written), increase since monitoring began.");
        meter.CreateObservableCounter("sqlserver.log.file.write.stall", () => Double(AggregationReading.LogFileWriteStall), "s",
            "Time spent waiting for writes to the database's log files (io_stall_write_ms); divide its rate by the writes' rate for the average write latency.");

        // In flight now: what a stalled log device shows while every completed-only figure above stays flat.
        meter.CreateObservableGauge("sqlserver.log.flush.outstanding", () => Long(AggregationReading.LogFlushOutstanding), "{flush}",
            "Log flushes started and not completed (log_flush_start without its log_flush_complete, paired on log_block_id as the events are read), per database; stream mode only, 0 when none.");
        meter.CreateObservableGauge("sqlserver.log.flush.outstanding.age", () => Double(AggregationReading.LogFlushOutstandingAge), "s",
            "How long ago the oldest outstanding log flush started, on the server's clock (0 when none): a start that never completes ages, it does not vanish.");
        meter.CreateObservableGauge("sqlserver.database.writelog.waiting", () => Long(AggregationReading.WriteLogWaiting), "{session}",
            "Sessions waiting on WRITELOG now (sys.dm_os_waiting_tasks joined to sys.dm_exec_requests), per database, as of the last poll.");
        meter.CreateObservableGauge("sqlserver.database.writelog.longest_wait", () => Double(AggregationReading.WriteLogLongestWait), "s",
            "The longest current WRITELOG wait (wait_duration_ms) of those sessions, as of the last poll (0 when none waits).");

        // The instance and the monitor itself.
        meter.CreateObservableGauge("sqlserver.instance.start_time", () => Double(AggregationReading.InstanceStartTime), "s",
            "When the instance started (sqlserver_start_time), seconds since the Unix epoch.");
        meter.CreateObservableCounter("sqlserver.instance.restarts", () => Long(AggregationReading.InstanceRestarts), "{restart}",
            "Instance restarts observed since monitoring began (a new sqlserver_start_time).");
        meter.CreateObservableCounter("sqlserver.monitor.events", () => Long(AggregationReading.EventsReceived), "{event}",
            "Log-flush and wait events that reached the aggregation.");
        meter.CreateObservableCounter("sqlserver.monitor.events.lost", () => Long(AggregationReading.EventsLost), "{event}",
            "Events lost before the aggregation, by loss.kind: sequence_gap (event_sequence gaps), channel_full (the pipeline was behind), server_dropped (the server's own count), malformed (unreadable input, and polled values refused as impossible).");
        meter.CreateObservableGauge("sqlserver.monitor.events.loss", () => Double(AggregationReading.EventLossRatio), "1",
            "Fraction of the log flushes the server counted (Log Flushes/sec increase) for which no log_flush_start event arrived, per database, since monitoring began.");
        meter.CreateObservableGauge("sqlserver.monitor.up", () => _health.ObserveUp(), "{status}",
            "1 while a source component of the instance (poller, stream, session) works, 0 after it failed.");
        meter.CreateObservableGauge("sqlserver.monitor.last_success", () => _health.ObserveLastSuccess(), "s",
            "When a source component of the instance last succeeded, seconds since the Unix epoch.");
        meter.CreateObservableCounter("sqlserver.monitor.errors", () => _health.ObserveErrors(), "{error}",
            "Errors of a source component by error.type (login_failed, permission, timeout, disconnected, ...).");
        meter.CreateObservableGauge("sqlserver.monitor.collection.mode", () => _health.ObserveModes(), "{mode}",
            "1 for the collection mode the instance uses now (mode=stream or mode=histogram).");
        meter.CreateObservableCounter("sqlserver.monitor.fallbacks", () => _health.ObserveFallbacks(), "{fallback}",
            "Times an instance fell back from streaming events to the server-side histogram by itself (repeated error 25726).");
        meter.CreateObservableCounter("sqlserver.monitor.export.failures", () => _exports.ObserveFailures(), "{export}",
            "Metric exports that failed, by exporter (otlp) and error.type (unreachable, timeout, http_<status>, grpc_<status>, failed).");
        meter.CreateObservableCounter("sqlserver.monitor.attributes.truncated", () => new Measurement<long>(MetricAttributes.Truncated), "{value}",
            $"Attribute values (instance, database, wait type, counter names) cut to {MetricAttributes.MaxValueLength} characters because they were longer.");
    }

    /// <summary>The one Meter of <see cref="MeterName"/>: the factory hands the same one to every caller and disposes it.</summary>
    internal static Meter CreateMeter(IMeterFactory meterFactory)
    {
        ArgumentNullException.ThrowIfNull(meterFactory);
        return meterFactory.Create(new MeterOptions(MeterName) { Version = typeof(LogFlushMetrics).Assembly.GetName().Version?.ToString(3) });
    }

    private IEnumerable<Measurement<long>> Long(AggregationReading reading)
    {
        var batch = RecycledMeasurements<long>.Take(_longBatches, (int)reading);
        _aggregation.ReadLong(reading, batch.Items);
        return batch;
    }

    private IEnumerable<Measurement<double>> Double(AggregationReading reading)
    {
        var batch = RecycledMeasurements<double>.Take(_doubleBatches, (int)reading);
        _aggregation.ReadDouble(reading, batch.Items);
        return batch;
    }
}

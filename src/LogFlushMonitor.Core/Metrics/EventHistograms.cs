using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// The instruments recorded per event by the aggregation: write sizes, flush durations and wait durations. Declared
/// here with name, UCUM unit, description and bucket advice; the observable instruments are in
/// <see cref="LogFlushMetrics"/>. Both share the one Meter the factory hands out for <see cref="LogFlushMetrics.MeterName"/>.
/// </summary>
public sealed class EventHistograms
{
    /// <summary>Creates the histograms on the Meter <paramref name="meterFactory"/> makes (owned and disposed by the factory).</summary>
    public EventHistograms(IMeterFactory meterFactory)
    {
        var meter = LogFlushMetrics.CreateMeter(meterFactory);
        FlushWriteSize = meter.CreateHistogram(
            "sqlserver.log.flush.write_size",
            unit: "By",
            description: "Size of each log flush (log_flush_start write_size): 512 B flushes mean one flush per small commit, 60 KB ones a full log buffer.",
            tags: null,
            advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = LogFlushMetrics.WriteSizeBuckets });
        FlushDuration = meter.CreateHistogram(
            "sqlserver.log.flush.duration",
            unit: "s",
            description: "Duration of each log flush (log_flush_complete duration).",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = LogFlushMetrics.DurationBuckets });
        WaitDuration = meter.CreateHistogram(
            "sqlserver.database.wait.duration",
            unit: "s",
            description: "Duration of each completed wait attributed to a database by wait events (WRITELOG: a commit waiting for its log flush).",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = LogFlushMetrics.DurationBuckets });
    }

    /// <summary>Recorded per log_flush_start event (bytes), and per flush counted by a histogram-mode bucket.</summary>
    public Histogram<long> FlushWriteSize { get; }

    /// <summary>Recorded per log_flush_complete event (seconds).</summary>
    public Histogram<double> FlushDuration { get; }

    /// <summary>Recorded per completed wait event with a database (seconds).</summary>
    public Histogram<double> WaitDuration { get; }

    /// <summary>
    /// Records <paramref name="count"/> flushes of <paramref name="bytes"/> each (a histogram-mode bucket). The SDK's
    /// Histogram has no weighted Record, and no other set of values gives the same count, sum and bucket counts, so
    /// this records the one value <paramref name="count"/> times: exact, allocation-free, with the tags built once
    /// (cost per flush in bench/: AggregationBenchmarks.FlushBucketWithSdk).
    /// </summary>
    internal void RecordWriteSizes(uint bytes, long count, in TagList tags)
    {
        for (long i = 0; i < count; i++)
        {
            FlushWriteSize.Record(bytes, tags);
        }
    }
}

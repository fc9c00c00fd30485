using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Analyze;

/// <summary>
/// Sits between the mapper and the aggregator: counts what each file holds (flushes, WRITELOG waits, other
/// waits, losses) and forwards only what the report is about. Other wait types are counted, not aggregated,
/// so a database that only had unrelated waits does not show up with an empty histogram. Files hold events only,
/// so this is an event sink.
/// </summary>
/// <remarks>
/// One reading thread. Per event it allocates nothing (wait-type strings come interned from the map); with a
/// <see cref="TimeSeriesRecorder"/> (the HTML report) flushes and WRITELOG waits are also counted per time bucket.
/// </remarks>
internal sealed class AnalyzeSink(LogFlushAggregator aggregator, TimeSeriesRecorder? series = null) : IEventSink
{
    /// <summary>The wait type whose events the report is about.</summary>
    public const string WriteLog = "WRITELOG";

    private readonly LogFlushAggregator _aggregator = aggregator;
    private readonly TimeSeriesRecorder? _series = series;

    // Events go to the aggregation in batches: one lock per 1,024 events instead of one per event.
    private readonly EventSample[] _batch = new EventSample[1024];
    private int _batched;

    /// <summary>log_flush_start events of the current file.</summary>
    public long FlushStarts { get; private set; }

    /// <summary>log_flush_complete events of the current file.</summary>
    public long FlushCompletes { get; private set; }

    /// <summary>WRITELOG waits of the current file.</summary>
    public long WriteLogWaits { get; private set; }

    /// <summary>Events lost (event_sequence gaps) seen in the current file.</summary>
    public long Lost { get; private set; }

    /// <summary>Completed waits of other types in the current file, by wait type.</summary>
    public Dictionary<string, long> OtherWaits { get; } = new(StringComparer.Ordinal);

    /// <summary>Hands the batched events to the aggregation (call before reading its snapshot).</summary>
    public void Flush()
    {
        if (_batched > 0)
        {
            _aggregator.Apply(_batch.AsSpan(0, _batched));
            Array.Clear(_batch, 0, _batched);
            _batched = 0;
        }
    }

    /// <summary>Starts counting a new file.</summary>
    public void BeginFile()
    {
        Flush();
        FlushStarts = FlushCompletes = WriteLogWaits = Lost = 0;
        OtherWaits.Clear();
    }

    /// <inheritdoc />
    public void OnLogFlush(in LogFlushEvent flush)
    {
        if (flush.IsComplete)
        {
            FlushCompletes++;
        }
        else
        {
            FlushStarts++;
            _series?.Flush(flush.Instance, flush.DatabaseId, flush.TimestampUtc);
        }

        Add(EventSample.Of(flush));
    }

    /// <inheritdoc />
    public void OnWait(in WaitEvent wait)
    {
        if (ReferenceEquals(wait.WaitType, WriteLog) || wait.WaitType == WriteLog)
        {
            WriteLogWaits++;
            _series?.WriteLog(wait.Instance, wait.DatabaseId, wait.TimestampUtc, wait.Duration);
            Add(EventSample.Of(wait));
            return;
        }

        OtherWaits[wait.WaitType] = OtherWaits.GetValueOrDefault(wait.WaitType) + 1;
    }

    /// <inheritdoc />
    public void OnSourceLoss(string instance, LossKind kind, long count)
    {
        Lost += count;
        _aggregator.OnSourceLoss(instance, kind, count);
    }

    private void Add(in EventSample sample)
    {
        _batch[_batched++] = sample;
        if (_batched == _batch.Length)
        {
            Flush();
        }
    }
}

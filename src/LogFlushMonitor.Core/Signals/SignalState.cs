using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// A signal's state for one instance of the aggregation: what its batches leave (series, totals, the last reading) and
/// how a collect reads it. Guarded by the aggregation's lock: <see cref="Apply"/> and <see cref="Read"/> run under it,
/// and what must wait until it is released (a log line, a histogram record) goes into the <see cref="SignalOutcome"/>.
/// </summary>
internal abstract class SignalState
{
    /// <summary>Applies one batch of the signal (under the aggregation's lock).</summary>
    public abstract void Apply(SignalBatch batch, SignalOutcome outcome);

    /// <summary>Appends the current value of each series to its family's list (under the lock, once per collect).</summary>
    public virtual void Read(MeasurementBuffers into)
    {
    }
}

/// <summary>The state of a signal whose rows are <typeparamref name="TRow"/>.</summary>
/// <typeparam name="TRow">The signal's row.</typeparam>
internal abstract class SignalState<TRow> : SignalState
{
    /// <inheritdoc />
    public sealed override void Apply(SignalBatch batch, SignalOutcome outcome) => Apply((SignalBatch<TRow>)batch, outcome);

    /// <summary>Applies one batch (under the aggregation's lock).</summary>
    protected abstract void Apply(SignalBatch<TRow> batch, SignalOutcome outcome);
}

/// <summary>
/// The state of a polled signal whose series a poll refreshes: each row refreshes (or creates) its series with the stamp of
/// the poll in progress; the batch that ends a poll retires the series it did not refresh (a dropped database, a wait type
/// gone, a replica removed).
/// </summary>
/// <typeparam name="TRow">The signal's row.</typeparam>
internal abstract class PolledState<TRow> : SignalState<TRow>
{
    private int _generation;

    /// <summary>The stamp that marks a series as refreshed by the poll in progress.</summary>
    protected int Stamp => _generation + 1;

    /// <inheritdoc />
    protected sealed override void Apply(SignalBatch<TRow> batch, SignalOutcome outcome)
    {
        foreach (ref readonly var row in batch.Rows)
        {
            ApplyRow(batch, row, outcome);
        }

        if (batch.EndsPoll)
        {
            EndPoll(++_generation, batch, outcome);
        }
    }

    /// <summary>Applies one row: refreshes its series with <see cref="Stamp"/>.</summary>
    protected abstract void ApplyRow(SignalBatch<TRow> batch, in TRow row, SignalOutcome outcome);

    /// <summary>A poll ended: series whose stamp is not <paramref name="keep"/> were not refreshed by it.</summary>
    protected abstract void EndPoll(int keep, SignalBatch<TRow> batch, SignalOutcome outcome);

    /// <summary>Removes the series of <paramref name="series"/> a poll did not refresh.</summary>
    protected static void RemoveStale<TKey, TSeries>(Dictionary<TKey, TSeries> series, int keep)
        where TKey : notnull
        where TSeries : PolledSeries
    {
        foreach (var (key, s) in series)
        {
            if (s.Stamp != keep)
            {
                series.Remove(key);
            }
        }
    }
}

/// <summary>What applying batches leaves to do once the aggregation's lock is released.</summary>
internal sealed class SignalOutcome
{
    /// <summary>Polled values refused as impossible (counted as malformed already), for the host to log.</summary>
    public List<RejectedReading>? Rejected { get; private set; }

    /// <summary>Agreement verdicts that changed, for the host to say once.</summary>
    public List<AgreementReport>? Agreement;

    /// <summary>Flushes counted by a histogram target, to record into the write-size histogram (count times one size).</summary>
    public List<(long Bytes, long Count, KeyValuePair<string, object?>[] Tags)>? WriteSizes { get; private set; }

    /// <summary>Counts <paramref name="reading"/> as malformed input of <paramref name="instance"/> and keeps it to report.</summary>
    public void Reject(InstanceState instance, RejectedReading reading)
    {
        instance.Lost[(int)Samples.LossKind.Malformed]++;
        (Rejected ??= []).Add(reading);
    }

    /// <summary>
    /// Counts each refused column of one row as malformed input of <paramref name="instance"/>, and keeps the first to
    /// report (one log line per row).
    /// </summary>
    public void Check(InstanceState instance, string source, string subject, params ReadOnlySpan<(string Column, long Value, ReadingVerdict Verdict)> columns)
    {
        RejectedReading? first = null;
        foreach (var (column, value, verdict) in columns)
        {
            if (verdict != ReadingVerdict.Accepted)
            {
                instance.Lost[(int)Samples.LossKind.Malformed]++;
                first ??= new RejectedReading(instance.Name, source, column, subject, value, verdict);
            }
        }

        if (first is { } r)
        {
            (Rejected ??= []).Add(r);
        }
    }

    /// <summary>Keeps <paramref name="count"/> flushes of <paramref name="bytes"/> to record.</summary>
    public void RecordWriteSizes(long bytes, long count, KeyValuePair<string, object?>[] tags) => (WriteSizes ??= []).Add((bytes, count, tags));
}

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// Rows of one <see cref="Signal"/> read from one instance at one time: what every poll delivers, the one way polled rows
/// travel (<see cref="Samples.IPollSink.OnBatch"/>). A poll hands over its rows in one batch that <see cref="EndsPoll"/>;
/// a replayed recording hands over one row per line and the end of the poll as an empty batch, which the aggregation
/// applies the same way. Immutable once made; a few per poll interval, never per event.
/// </summary>
public abstract class SignalBatch
{
    private protected SignalBatch(string instance, DateTime timestampUtc, bool endsPoll)
    {
        ArgumentNullException.ThrowIfNull(instance);
        Instance = instance;
        TimestampUtc = timestampUtc;
        EndsPoll = endsPoll;
    }

    /// <summary>The signal the rows are of.</summary>
    public abstract Signal Signal { get; }

    /// <summary>The instance they were read from (exported as sqlserver.instance.name).</summary>
    public string Instance { get; }

    /// <summary>When they were read.</summary>
    public DateTime TimestampUtc { get; }

    /// <summary>Whether this ends one poll: series of the signal the poll did not refresh are retired.</summary>
    public bool EndsPoll { get; }

    /// <summary>How many rows it holds.</summary>
    public abstract int Count { get; }

    /// <summary>The same batch read <paramref name="ticks"/> later (a replay moves a recording to now).</summary>
    public abstract SignalBatch Shifted(long ticks);
}

/// <summary>Rows of a <see cref="Signal{TRow}"/>.</summary>
/// <typeparam name="TRow">The signal's row.</typeparam>
public sealed class SignalBatch<TRow> : SignalBatch
{
    private readonly TRow[] _rows;

    internal SignalBatch(Signal<TRow> signal, string instance, DateTime timestampUtc, TRow[] rows, bool endsPoll)
        : base(instance, timestampUtc, endsPoll)
    {
        ArgumentNullException.ThrowIfNull(signal);
        ArgumentNullException.ThrowIfNull(rows);
        Of = signal;
        _rows = rows;
    }

    /// <summary>The signal, typed.</summary>
    public Signal<TRow> Of { get; }

    /// <inheritdoc />
    public override Signal Signal => Of;

    /// <summary>The rows, in the order the server returned them.</summary>
    public ReadOnlySpan<TRow> Rows => _rows;

    /// <inheritdoc />
    public override int Count => _rows.Length;

    /// <inheritdoc />
    public override SignalBatch Shifted(long ticks)
    {
        var rows = _rows;
        if (Of.Recording is SignalRecording<TRow> recording && recording.HasTimes)
        {
            rows = [.. _rows.Select(r => recording.Shift(r, ticks))];
        }

        return new SignalBatch<TRow>(Of, Instance, TimestampUtc.AddTicks(ticks), rows, EndsPoll);
    }
}

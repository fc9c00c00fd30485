using System.Globalization;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// What <c>analyze</c> and <c>report</c> show of one signal from a recording: it sees every batch the recording replays
/// (<see cref="Observe"/>) and then says what they add up to, as one table (<see cref="Table"/>). A signal makes one with
/// <see cref="Signal.NewView"/>; one view serves one analysis, on one thread.
/// </summary>
public abstract class SignalView
{
    /// <summary>One batch of the signal's rows, in the order the recording holds them.</summary>
    public abstract void Observe(SignalBatch batch);

    /// <summary>What the batches add up to, or null when the recording held none of the signal's rows.</summary>
    public abstract SignalTable? Table();

    /// <summary>
    /// Whether it also reads the batches of <paramref name="other"/>: a view whose figures need another signal's rows (the
    /// log's space needs the log files' room to say when the log is full). None by default.
    /// </summary>
    public virtual bool AlsoReads(Signal other) => false;

    /// <summary>A batch of another signal it <see cref="AlsoReads"/>, in the order the recording holds it.</summary>
    public virtual void ObserveOther(SignalBatch batch)
    {
    }
}

/// <summary>A view of a signal whose rows are <typeparamref name="TRow"/>.</summary>
/// <typeparam name="TRow">The signal's row.</typeparam>
public abstract class SignalView<TRow> : SignalView
{
    /// <inheritdoc />
    public sealed override void Observe(SignalBatch batch)
    {
        var typed = (SignalBatch<TRow>)batch;
        foreach (var row in typed.Rows)
        {
            Observe(batch.Instance, batch.TimestampUtc, row);
        }
    }

    /// <summary>One row read from <paramref name="instance"/> at <paramref name="timestampUtc"/>.</summary>
    protected abstract void Observe(string instance, DateTime timestampUtc, in TRow row);
}

/// <summary>
/// A signal's figures over a recording, as a table a person reads (text and HTML) and a program reads (JSON): cells are
/// strings, whole numbers, fractional numbers or null (not known); each column says its unit.
/// </summary>
/// <param name="Signal">The signal's name (<see cref="Signal.Name"/>).</param>
/// <param name="Title">What the table shows, as a heading.</param>
/// <param name="Columns">Its columns, in order.</param>
/// <param name="Rows">Its rows, each with one cell per column.</param>
/// <param name="Notes">How to read it: where its figures come from and what they leave out.</param>
public sealed record SignalTable(string Signal, string Title, IReadOnlyList<SignalColumn> Columns, IReadOnlyList<IReadOnlyList<object?>> Rows, IReadOnlyList<string> Notes)
{
    /// <summary>A cell as text: numbers with thousands separators and at most <paramref name="decimals"/> decimals, null as "-".</summary>
    public static string Format(object? cell, int decimals = 2) => cell switch
    {
        null => "-",
        string s => s,
        long l => l.ToString("N0", CultureInfo.InvariantCulture),
        int i => i.ToString("N0", CultureInfo.InvariantCulture),
        double d => d.ToString("N" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture),
        DateTime t => t.ToString("yyyy-MM-dd HH:mm:ss'Z'", CultureInfo.InvariantCulture),
        _ => Convert.ToString(cell, CultureInfo.InvariantCulture) ?? "-",
    };
}

/// <summary>A column of a <see cref="SignalTable"/>.</summary>
/// <param name="Name">Its heading.</param>
/// <param name="Unit">Its unit as a person reads it (<c>ms</c>, <c>B</c>, <c>/s</c>, <c>%</c>), or empty for a name or a count.</param>
public sealed record SignalColumn(string Name, string Unit = "");

/// <summary>
/// A cumulative figure of the server (a counter since the instance started) over a recording: the increase between the
/// first and the last reading, with a drop counted as a restart from zero (the figure after it is all increase), as
/// Prometheus's <c>increase()</c> reads a counter.
/// </summary>
public struct CumulativeFigure
{
    private long _last;

    /// <summary>Whether any reading was seen.</summary>
    public bool Started { get; private set; }

    /// <summary>When the first reading was taken.</summary>
    public DateTime FirstUtc { get; private set; }

    /// <summary>When the last reading was taken.</summary>
    public DateTime LastUtc { get; private set; }

    /// <summary>The increase over the recording (restarts counted from zero).</summary>
    public long Increase { get; private set; }

    /// <summary>Readings lower than the one before them (a restart of the server, or of what the figure counts).</summary>
    public int Resets { get; private set; }

    /// <summary>Seconds between the first and the last reading.</summary>
    public readonly double Seconds => Started ? (LastUtc - FirstUtc).TotalSeconds : 0;

    /// <summary>The increase a second, or null over less than a second.</summary>
    public readonly double? PerSecond => Seconds >= 1 ? Increase / Seconds : null;

    /// <summary>Takes one reading.</summary>
    public void Add(long value, DateTime atUtc)
    {
        if (!Started)
        {
            Started = true;
            FirstUtc = atUtc;
        }
        else if (value >= _last)
        {
            Increase = SaturatingAdd(Increase, value - Math.Max(0, _last));
        }
        else
        {
            Resets++;
            Increase = SaturatingAdd(Increase, Math.Max(0, value));
        }

        _last = value;
        if (atUtc > LastUtc)
        {
            LastUtc = atUtc;
        }
    }

    private static long SaturatingAdd(long a, long b) => b > long.MaxValue - a ? long.MaxValue : a + b;
}

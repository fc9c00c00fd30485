namespace LogFlushMonitor.Workload;

/// <summary>
/// The counts one scenario's sessions share, and the rows still to commit when the scenario has a row limit (each
/// transaction reserves its rows first and gives back those that did not commit).
/// </summary>
internal sealed class WorkloadCounters(long? rowLimit)
{
    private long _commits;
    private long _rows;
    private long _errors;
    private long _reconnects;
    private long _unreserved = rowLimit ?? long.MaxValue;
    private long _rowsSinceTruncate;
    private int _truncating;

    public long Commits => Interlocked.Read(ref _commits);

    public long Rows => Interlocked.Read(ref _rows);

    public long Errors => Interlocked.Read(ref _errors);

    public long Reconnects => Interlocked.Read(ref _reconnects);

    /// <summary>Each commit's round trip, as the client timed it.</summary>
    public CommitLatencies Latency { get; } = new();

    /// <summary>Takes up to <paramref name="wanted"/> rows of the limit; 0 when none is left.</summary>
    public int Reserve(int wanted)
    {
        while (true)
        {
            var left = Interlocked.Read(ref _unreserved);
            var take = (int)Math.Min(wanted, left);
            if (take <= 0 || Interlocked.CompareExchange(ref _unreserved, left - take, left) == left)
            {
                return Math.Max(0, take);
            }
        }
    }

    /// <summary>Gives back rows that were reserved but not committed.</summary>
    public void Release(int rows)
    {
        if (rows > 0)
        {
            Interlocked.Add(ref _unreserved, rows);
        }
    }

    /// <summary>A transaction committed <paramref name="rows"/> rows; returns the rows written since the tables were last emptied.</summary>
    public long Committed(int rows)
    {
        Interlocked.Increment(ref _commits);
        Interlocked.Add(ref _rows, rows);
        return Interlocked.Add(ref _rowsSinceTruncate, rows);
    }

    /// <summary>True for the one session that gets to empty the tables now (others carry on).</summary>
    public bool TryBeginTruncate() => Interlocked.CompareExchange(ref _truncating, 1, 0) == 0;

    /// <summary>The tables were emptied (or the attempt ended): <paramref name="rowsSeen"/> rows are gone.</summary>
    public void EndTruncate(long rowsSeen)
    {
        Interlocked.Add(ref _rowsSinceTruncate, -rowsSeen);
        Volatile.Write(ref _truncating, 0);
    }

    public void Error() => Interlocked.Increment(ref _errors);

    public void Reconnected() => Interlocked.Increment(ref _reconnects);
}

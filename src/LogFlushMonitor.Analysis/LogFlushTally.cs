using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// What <c>analyze</c> adds up per database: exact write sizes, flush durations, WRITELOG waits (also by application) and the time range.
/// One tally per reading thread; tallies merge exactly (integer sums, bucket counts, minimum and maximum), so the
/// result does not depend on how the events were split between threads or in which order they arrived.
/// </summary>
/// <remarks>Not thread-safe: each worker owns one and the caller merges them after reading.</remarks>
internal sealed class LogFlushTally
{
    /// <summary>
    /// The largest database_id a server can give (SQL Server holds at most 32,767 databases per instance). A larger or
    /// negative id is a damaged value (a flipped bit), not a database: the event is counted as malformed and skipped.
    /// </summary>
    public const int MaxDatabaseId = DatabaseIds.Max;

    private readonly List<InstanceTally> _instances = [];
    private InstanceTally? _last;

    /// <summary>The instances in the order they were first seen.</summary>
    public IReadOnlyList<InstanceTally> Instances => _instances;

    /// <summary>The tally of <paramref name="instance"/>, created on first use.</summary>
    public InstanceTally Instance(string instance)
    {
        if (_last is { } last && (ReferenceEquals(last.Name, instance) || last.Name == instance))
        {
            return last;
        }

        // A loop, not a lambda: a closure over the parameter would be allocated on every call, the fast path's too.
        foreach (var i in _instances)
        {
            if (i.Name == instance)
            {
                return _last = i;
            }
        }

        _last = new InstanceTally(instance);
        _instances.Add(_last);
        return _last;
    }

    /// <summary>Adds everything <paramref name="other"/> counted to this tally.</summary>
    public void AddFrom(LogFlushTally other)
    {
        foreach (var inst in other._instances)
        {
            var mine = Instance(inst.Name);
            foreach (var db in inst.Databases)
            {
                mine.Database(db.DatabaseId).AddFrom(db);
            }
        }
    }
}

/// <summary>One instance's databases, found by id with an array index.</summary>
internal sealed class InstanceTally(string name)
{
    private DatabaseTally?[] _byId = new DatabaseTally?[64];

    /// <summary>Instance name (<see cref="AnalyzeRunner.InstanceName"/> for .xel files).</summary>
    public string Name { get; } = name;

    /// <summary>Databases by id.</summary>
    public IEnumerable<DatabaseTally> Databases => _byId.OfType<DatabaseTally>();

    /// <summary>The database with id <paramref name="databaseId"/> (0 to <see cref="LogFlushTally.MaxDatabaseId"/>; callers check).</summary>
    public DatabaseTally Database(int databaseId)
    {
        if ((uint)databaseId >= (uint)_byId.Length)
        {
            ArgumentOutOfRangeException.ThrowIfGreaterThan((uint)databaseId, (uint)LogFlushTally.MaxDatabaseId, nameof(databaseId));
            Array.Resize(ref _byId, Math.Min(LogFlushTally.MaxDatabaseId + 1, Math.Max(databaseId + 1, _byId.Length * 2)));
        }

        return _byId[databaseId] ??= new DatabaseTally(this, databaseId);
    }
}

/// <summary>One database's figures. Adding allocates nothing.</summary>
internal sealed class DatabaseTally(InstanceTally instance, int databaseId)
{
    /// <summary>The instance.</summary>
    public InstanceTally Instance { get; } = instance;

    /// <summary>database_id.</summary>
    public int DatabaseId { get; } = databaseId;

    /// <summary>The name, when an event carried it (see <see cref="OfferName"/>).</summary>
    public string? Name { get; private set; }

    /// <summary>Where the name was read: input file ordinal and byte offset (the first in reading order wins).</summary>
    public (long File, long Offset) NameAt { get; private set; } = (long.MaxValue, long.MaxValue);

    /// <summary>log_flush_start write sizes.</summary>
    public WriteSizeDistribution Sizes { get; } = new();

    /// <summary>log_flush_complete durations.</summary>
    public LatencyDistribution FlushDurations { get; } = new();

    /// <summary>Completed WRITELOG waits.</summary>
    public LatencyDistribution WriteLog { get; } = new();

    /// <summary>
    /// Duration fields of completes without a start, read both ways until the unit is settled over the whole input
    /// (<see cref="FlushPairing.Finish"/> adds one of them to <see cref="FlushDurations"/>); null when there were none.
    /// </summary>
    public (LatencyDistribution AsMilliseconds, LatencyDistribution AsMicroseconds)? Unpaired { get; private set; }

    /// <summary>Keeps the duration field of a complete that has no start (both readings: the unit is settled at the end).</summary>
    public void AddUnpairedDuration(ulong duration)
    {
        var u = Unpaired ??= (new LatencyDistribution(), new LatencyDistribution());
        u.AsMilliseconds.AddTicks(DurationUnits.ToTicks(duration, DurationUnit.Milliseconds));
        u.AsMicroseconds.AddTicks(DurationUnits.ToTicks(duration, DurationUnit.Microseconds));
    }

    /// <summary>Adds the unpaired completes, read in <paramref name="unit"/>, to <see cref="FlushDurations"/> (once, at the end).</summary>
    public void ApplyUnpaired(DurationUnit unit)
    {
        if (Unpaired is { } u)
        {
            FlushDurations.AddFrom(unit == DurationUnit.Milliseconds ? u.AsMilliseconds : u.AsMicroseconds);
            Unpaired = null;
        }
    }

    /// <summary>WRITELOG waits per 10 seconds of their end time, for the busiest 10 seconds.</summary>
    public WindowWaits WriteLogWindows { get; } = new(TimeSpan.FromSeconds(10));

    /// <summary>First event time (ticks), <see cref="long.MaxValue"/> when none.</summary>
    public long FirstTicks { get; private set; } = long.MaxValue;

    /// <summary>Last event time (ticks), <see cref="long.MinValue"/> when none.</summary>
    public long LastTicks { get; private set; } = long.MinValue;

    /// <summary>Time of the last log_flush_complete (ticks), <see cref="long.MinValue"/> when none.</summary>
    public long LastCompleteTicks { get; private set; } = long.MinValue;

    /// <summary>A log_flush_complete at <paramref name="ticks"/>.</summary>
    public void Completed(long ticks)
    {
        if (ticks > LastCompleteTicks)
        {
            LastCompleteTicks = ticks;
        }
    }

    /// <summary>True when an event at (<paramref name="file"/>, <paramref name="offset"/>) would name the database earlier than the name it has.</summary>
    public bool WantsNameAt(long file, long offset) => file < NameAt.File || (file == NameAt.File && offset < NameAt.Offset);

    /// <summary>
    /// Takes <paramref name="name"/> if it was read earlier than the current one: a session's database names do not
    /// change, and "the first name in reading order" is the same however the events were split between threads.
    /// </summary>
    public void OfferName(string name, long file, long offset)
    {
        if (WantsNameAt(file, offset))
        {
            Name = name;
            NameAt = (file, offset);
        }
    }

    /// <summary>Sets the name unconditionally (an NDJSON recording: the latest name wins, as in the live aggregation).</summary>
    public void SetName(string name) => Name = name;

    /// <summary>Extends the time range to <paramref name="ticks"/>.</summary>
    public void Touch(long ticks)
    {
        if (ticks < FirstTicks)
        {
            FirstTicks = ticks;
        }

        if (ticks > LastTicks)
        {
            LastTicks = ticks;
        }
    }

    /// <summary>WRITELOG waits and time by client application.</summary>
    public ApplicationWriteLog Applications { get; } = new();

    /// <summary>WRITELOG waits and time by statement.</summary>
    public StatementWriteLog Statements { get; } = new();

    /// <summary>
    /// A WRITELOG wait of <paramref name="waitedTicks"/> that ended at <paramref name="endTicks"/> (UTC ticks), of the
    /// application <paramref name="app"/> (null: the wait carried no client_app_name; empty: the application sent none)
    /// and the statement <paramref name="statement"/> (null: the wait carried no query_hash).
    /// </summary>
    public void AddWriteLog(long endTicks, long waitedTicks, string? app, ulong? statement = null)
    {
        WriteLog.AddTicks(waitedTicks);
        WriteLogWindows.Add(endTicks, Math.Max(0, waitedTicks));
        Applications.Add(app, waitedTicks);
        Statements.Add(statement, waitedTicks);
    }

    /// <summary>
    /// Time waited (ticks) on each part of the commit budget other than the local flush (which is <see cref="WriteLog"/>),
    /// by <see cref="Core.Aggregation.CommitPart"/>: HADR_SYNC_COMMIT, LOGBUFFER and the log-rate governor's forms.
    /// </summary>
    public long[] CommitPartTicks { get; } = new long[Core.Aggregation.CommitParts.Count];

    /// <summary>A completed wait of <paramref name="waitedTicks"/> on <paramref name="part"/> (not WRITELOG).</summary>
    public void AddCommitPart(Core.Aggregation.CommitPart part, long waitedTicks) =>
        CommitPartTicks[(int)part] = Saturating.Add(CommitPartTicks[(int)part], Math.Max(0, waitedTicks));

    /// <summary>Adds <paramref name="other"/>'s figures (same database, another thread's share).</summary>
    public void AddFrom(DatabaseTally other)
    {
        for (var i = 0; i < CommitPartTicks.Length; i++)
        {
            CommitPartTicks[i] = Saturating.Add(CommitPartTicks[i], other.CommitPartTicks[i]);
        }

        Sizes.AddFrom(other.Sizes);
        FlushDurations.AddFrom(other.FlushDurations);
        if (other.Unpaired is { } u)
        {
            var mine = Unpaired ??= (new LatencyDistribution(), new LatencyDistribution());
            mine.AsMilliseconds.AddFrom(u.AsMilliseconds);
            mine.AsMicroseconds.AddFrom(u.AsMicroseconds);
        }
        WriteLog.AddFrom(other.WriteLog);
        WriteLogWindows.AddFrom(other.WriteLogWindows);
        Applications.AddFrom(other.Applications);
        Statements.AddFrom(other.Statements);
        FirstTicks = Math.Min(FirstTicks, other.FirstTicks);
        LastTicks = Math.Max(LastTicks, other.LastTicks);
        LastCompleteTicks = Math.Max(LastCompleteTicks, other.LastCompleteTicks);
        if (other.Name is { } name)
        {
            if (other.NameAt.File == long.MaxValue)
            {
                Name = name;
            }
            else
            {
                OfferName(name, other.NameAt.File, other.NameAt.Offset);
            }
        }
    }
}

/// <summary>
/// Waits counted per window of time (aligned on whole windows of UTC ticks): count and ticks waited. Events come in time
/// order within a buffer, so the per-event path adds to the current window and touches the dictionary only when the
/// window changes. Sums are integers: partial tallies merged in any order (analyze's workers) give the same windows as
/// one reader. The table starts with room for 64 windows (over 10 minutes of 10 s windows) and doubles when the events
/// span more: only then does counting a wait allocate, never per event.
/// </summary>
internal sealed class WindowWaits(TimeSpan length)
{
    private const int InitialWindows = 64;
    private readonly long _length = length.Ticks;
    private readonly Dictionary<long, (long Waits, long Ticks)> _windows = new(InitialWindows);
    private long _window = long.MinValue;
    private long _windowStart = long.MinValue; // no window yet: every tick count lies outside it
    private long _waits;
    private long _ticks;

    public void Add(long endTicks, long waitedTicks)
    {
        // One compare per wait while it falls in the current window; the division only when it does not.
        if ((ulong)(endTicks - _windowStart) >= (ulong)_length)
        {
            Switch(endTicks / _length);
        }

        _waits++;
        _ticks = Saturating.Add(_ticks, waitedTicks);
    }

    public void AddFrom(WindowWaits other)
    {
        other.Switch(long.MinValue);
        Switch(long.MinValue);
        foreach (var (window, (waits, ticks)) in other._windows)
        {
            var mine = _windows.GetValueOrDefault(window);
            _windows[window] = (mine.Waits + waits, Saturating.Add(mine.Ticks, ticks));
        }
    }

    /// <summary>
    /// The window with the most waiting per second of the time the database's events cover in it (the earliest of
    /// equals), or null when nothing waited. <paramref name="firstTicks"/> and <paramref name="lastTicks"/> are the
    /// database's first and last event: a window is divided by its part between them, never by more time than the events
    /// cover, so the busiest window never shows less than the whole span's average. Windows covered for less than a
    /// second (the edges of a longer span) do not compete: a few waits there would read as a rate they never had.
    /// </summary>
    public WriteLogWindow? Busiest(long firstTicks, long lastTicks)
    {
        Switch(long.MinValue);
        var minCovered = Math.Min(TimeSpan.TicksPerSecond, Math.Max(1, lastTicks - firstTicks));
        (long Window, long Waits, long Ticks, long Covered)? best = null;
        foreach (var (window, (waits, ticks)) in _windows)
        {
            var start = window * _length;
            var covered = Math.Max(1, Math.Min(start + _length, lastTicks) - Math.Max(start, firstTicks));
            if (covered < minCovered)
            {
                continue;
            }

            // ticks / covered > best.Ticks / best.Covered, without dividing (exact with integers far below overflow here).
            if (best is not { } b || (Int128)ticks * b.Covered > (Int128)b.Ticks * covered || ((Int128)ticks * b.Covered == (Int128)b.Ticks * covered && window < b.Window))
            {
                best = (window, waits, ticks, covered);
            }
        }

        return best is { } x
            ? new WriteLogWindow(new DateTime(x.Window * _length, DateTimeKind.Utc), TimeSpan.FromTicks(_length), x.Waits, x.Ticks / (double)TimeSpan.TicksPerSecond,
                x.Covered < _length ? TimeSpan.FromTicks(x.Covered) : null)
            : null;
    }

    /// <summary>Moves the current window's counts into the dictionary and starts window number <paramref name="window"/>.</summary>
    private void Switch(long window)
    {
        if (_waits > 0)
        {
            var kept = _windows.GetValueOrDefault(_window);
            _windows[_window] = (kept.Waits + _waits, Saturating.Add(kept.Ticks, _ticks));
        }

        _window = window;
        _windowStart = window == long.MinValue ? long.MinValue : window * _length;
        _waits = 0;
        _ticks = 0;
    }
}

namespace LogFlushMonitor.Analysis;

/// <summary>
/// Per database, flushes and WRITELOG waits counted in time buckets, for the report's charts. All databases share one
/// timeline of at most <see cref="Capacity"/> buckets: it starts at one second per bucket and, when the events span
/// more, widens to the next step of <see cref="Steps"/> (each divides the next, so buckets merge whole). Memory is
/// fixed per database and the per-event path allocates nothing; a widening costs one pass over the buckets.
/// </summary>
/// <remarks>One reading thread.</remarks>
internal sealed class TimeSeriesRecorder
{
    /// <summary>Buckets the timeline holds.</summary>
    public const int Capacity = 1024;

    /// <summary>
    /// Applications whose WRITELOG time is kept per database (first come); later ones count under
    /// <see cref="OtherApplication"/>. The page shows the <see cref="TopApplicationCount"/> of them.
    /// </summary>
    public const int MaxApplications = 32;

    /// <summary>Applications shown per database besides <see cref="OtherApplication"/>: the metric's bound (<see cref="ApplicationRanking.Top"/>).</summary>
    public const int TopApplicationCount = ApplicationRanking.Top;

    /// <summary>The rest of the applications, and waits whose application sent no name, as the metric labels them.</summary>
    public const string OtherApplication = ApplicationRanking.OtherName;

    /// <summary>Bucket widths in seconds, finest first; past the last, widths double.</summary>
    public static readonly IReadOnlyList<long> Steps = [1, 2, 10, 20, 60, 120, 600, 1200, 3600, 7200, 21600, 43200, 86400];

    private readonly Dictionary<(string Instance, int DatabaseId), Series> _series = [];
    private readonly long[] _scratch = new long[Capacity];
    private Series? _last;
    private long _widthTicks = TimeSpan.TicksPerSecond;
    private int _step;
    private long _lo = long.MaxValue;
    private long _hi = long.MinValue;
    private long _firstTicks = long.MaxValue;
    private long _lastTicks = long.MinValue;

    /// <summary>Width of a bucket now.</summary>
    public TimeSpan Width => TimeSpan.FromTicks(_widthTicks);

    /// <summary>A log_flush_start at <paramref name="timestampUtc"/>.</summary>
    public void Flush(string instance, int databaseId, DateTime timestampUtc)
    {
        var slot = Slot(timestampUtc.Ticks);
        SeriesOf(instance, databaseId).Flushes[slot]++;
    }

    /// <summary>
    /// A completed WRITELOG wait of <paramref name="duration"/> that ended at <paramref name="timestampUtc"/>, of the
    /// application <paramref name="app"/> (the client_app_name action: null when the session did not collect it; empty
    /// when the application sent none, counted as <see cref="OtherApplication"/> as the metric does).
    /// </summary>
    public void WriteLog(string instance, int databaseId, DateTime timestampUtc, TimeSpan duration, string? app = null)
    {
        var slot = Slot(timestampUtc.Ticks);
        var s = SeriesOf(instance, databaseId);
        s.Waits[slot]++;
        s.WaitTicks[slot] += duration.Ticks;
        if (app is not null)
        {
            s.AppTicks(app)[slot] += duration.Ticks;
            s.WaitsWithApp++;
        }
    }

    /// <summary>The first and last event over every database, or null when nothing was recorded.</summary>
    public (DateTime First, DateTime Last)? Range =>
        _lo > _hi ? null : (new DateTime(_firstTicks, DateTimeKind.Utc), new DateTime(_lastTicks, DateTimeKind.Utc));

    /// <summary>
    /// Adds what <paramref name="other"/> recorded (another reading thread's share). The result equals recording every
    /// event here: the width ends as the finest step that holds the whole range, whatever the order (each step divides
    /// the next, and a range that fits one step fits every wider one).
    /// </summary>
    public void AddFrom(TimeSeriesRecorder other)
    {
        ArgumentNullException.ThrowIfNull(other);
        if (other._lo > other._hi)
        {
            return;
        }

        while (_widthTicks < other._widthTicks)
        {
            Widen();
        }

        var factor = _widthTicks / other._widthTicks;
        while (Math.Max(_hi, other._hi / factor) - Math.Min(_lo, other._lo / factor) >= Capacity)
        {
            Widen();
            factor = _widthTicks / other._widthTicks;
        }

        foreach (var (key, theirs) in other._series)
        {
            if (!_series.TryGetValue(key, out var mine))
            {
                mine = new Series(key.Instance, key.DatabaseId);
                _series[key] = mine;
            }

            for (var b = other._lo; b <= other._hi; b++)
            {
                var from = (int)(b % Capacity);
                var to = (int)(b / factor % Capacity);
                mine.Flushes[to] += theirs.Flushes[from];
                mine.Waits[to] += theirs.Waits[from];
                mine.WaitTicks[to] += theirs.WaitTicks[from];
            }

            mine.WaitsWithApp += theirs.WaitsWithApp;
            foreach (var (app, ticks) in theirs.Apps)
            {
                var into = mine.AppTicks(app);
                for (var b = other._lo; b <= other._hi; b++)
                {
                    into[(int)(b / factor % Capacity)] += ticks[(int)(b % Capacity)];
                }
            }
        }

        _lo = Math.Min(_lo, other._lo / factor);
        _hi = Math.Max(_hi, other._hi / factor);
        _firstTicks = Math.Min(_firstTicks, other._firstTicks);
        _lastTicks = Math.Max(_lastTicks, other._lastTicks);
    }

    /// <summary>
    /// One database's counts re-bucketed to <paramref name="width"/> (a multiple of <see cref="Width"/>, e.g. from
    /// <see cref="DisplayWidth"/>) over the whole timeline, so every database's chart shares one time axis; null when
    /// the database had no flush or WRITELOG event.
    /// </summary>
    public DatabaseTimeSeries? Get(string instance, int databaseId, TimeSpan width)
    {
        if (!_series.TryGetValue((instance, databaseId), out var s) || _lo > _hi)
        {
            return null;
        }

        var factor = width.Ticks / _widthTicks;
        if (factor < 1 || width.Ticks % _widthTicks != 0)
        {
            throw new ArgumentException($"The width {width} is not a multiple of the recorded {Width}.", nameof(width));
        }

        var first = _lo / factor;
        var count = (int)(_hi / factor - first + 1);
        var flushes = new long[count];
        var waits = new long[count];
        var waitTicks = new long[count];
        for (var b = _lo; b <= _hi; b++)
        {
            var i = (int)(b / factor - first);
            var slot = (int)(b % Capacity);
            flushes[i] += s.Flushes[slot];
            waits[i] += s.Waits[slot];
            waitTicks[i] += s.WaitTicks[slot];
        }

        var apps = new List<(string Name, long[] Ticks)>(s.Apps.Count);
        foreach (var (app, ticks) in s.Apps)
        {
            var rebucketed = new long[count];
            for (var b = _lo; b <= _hi; b++)
            {
                rebucketed[(int)(b / factor - first)] += ticks[(int)(b % Capacity)];
            }

            apps.Add((app, rebucketed));
        }

        // The first and last buckets cover only part of their width: rates are per second actually covered, and an
        // edge bucket covering under a tenth of its width joins its neighbour rather than show a rate from a sliver.
        var seconds = new double[count];
        for (var i = 0; i < count; i++)
        {
            var from = Math.Max((first + i) * width.Ticks, _firstTicks);
            var to = Math.Min((first + i + 1) * width.Ticks, _lastTicks + 1);
            seconds[i] = Math.Max(0, to - from) / (double)TimeSpan.TicksPerSecond;
        }

        var start = new DateTime(first * width.Ticks, DateTimeKind.Utc);
        var tiny = width.TotalSeconds / 10;
        if (count > 1 && seconds[^1] < tiny)
        {
            Fold(count - 1, count - 2);
            count--;
        }

        var skip = count > 1 && seconds[0] < tiny ? 1 : 0;
        if (skip == 1)
        {
            Fold(0, 1);
            start += width;
        }

        return new DatabaseTimeSeries(start, width, flushes[skip..count], waits[skip..count], waitTicks[skip..count], seconds[skip..count])
        {
            Applications = TopApplications(apps, skip, count),
            WaitsWithApplication = s.WaitsWithApp,
        };

        void Fold(int from, int into)
        {
            flushes[into] += flushes[from];
            waits[into] += waits[from];
            waitTicks[into] += waitTicks[from];
            seconds[into] += seconds[from];
            foreach (var (_, ticks) in apps)
            {
                ticks[into] += ticks[from];
            }
        }
    }

    /// <summary>
    /// The <see cref="TopApplicationCount"/> applications by WRITELOG time, then <see cref="OtherApplication"/>
    /// for the rest (when it waited at all), as the metric bounds them (<see cref="ApplicationRanking.Rank"/>, as analyze's report).
    /// </summary>
    private static IReadOnlyList<ApplicationTimeSeries> TopApplications(List<(string Name, long[] Ticks)> apps, int skip, int count)
    {
        var (top, rest) = ApplicationRanking.Rank(apps.Select(a => (a.Name, Ticks: a.Ticks[skip..count])), a => a.Name, a => a.Ticks.Sum());
        var result = top.Select(a => new ApplicationTimeSeries(a.Name, a.Ticks)).ToList();
        var other = new long[count - skip];
        foreach (var (_, ticks) in rest)
        {
            for (var i = 0; i < other.Length; i++)
            {
                other[i] += ticks[i];
            }
        }

        if (other.Any(t => t > 0))
        {
            result.Add(new ApplicationTimeSeries(OtherApplication, other));
        }

        return result;
    }

    /// <summary>
    /// The finest round width (1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, days) that is a
    /// multiple of <see cref="Width"/> and shows the timeline in at most <paramref name="maxBuckets"/> buckets.
    /// </summary>
    public TimeSpan DisplayWidth(int maxBuckets)
    {
        foreach (var seconds in DisplaySeconds())
        {
            var width = seconds * TimeSpan.TicksPerSecond;
            if (width % _widthTicks == 0 && (_lo > _hi || (_hi * _widthTicks / width) - (_lo * _widthTicks / width) + 1 <= maxBuckets))
            {
                return TimeSpan.FromTicks(width);
            }
        }

        throw new InvalidOperationException("unreachable: widths double without end");
    }

    private static IEnumerable<long> DisplaySeconds()
    {
        foreach (var s in (long[])[1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200])
        {
            yield return s;
        }

        for (var days = 1L; ; days *= 2)
        {
            yield return days * 86400;
        }
    }

    private static long StepTicks(int step) =>
        TimeSpan.TicksPerSecond * (step < Steps.Count ? Steps[step] : Steps[^1] << Math.Min(step - Steps.Count + 1, 30));

    private Series SeriesOf(string instance, int databaseId)
    {
        // Events come in runs of one database: compare before hashing.
        if (_last is { } l && l.DatabaseId == databaseId && (ReferenceEquals(l.Instance, instance) || l.Instance == instance))
        {
            return l;
        }

        if (!_series.TryGetValue((instance, databaseId), out var s))
        {
            s = new Series(instance, databaseId);
            _series[(instance, databaseId)] = s;
        }

        return _last = s;
    }

    /// <summary>The slot of <paramref name="ticks"/>, widening the timeline first when it would not fit.</summary>
    private int Slot(long ticks)
    {
        var bucket = ticks / _widthTicks;
        while (Math.Max(_hi, bucket) - Math.Min(_lo, bucket) >= Capacity)
        {
            Widen();
            bucket = ticks / _widthTicks;
        }

        _lo = Math.Min(_lo, bucket);
        _hi = Math.Max(_hi, bucket);
        _firstTicks = Math.Min(_firstTicks, ticks);
        _lastTicks = Math.Max(_lastTicks, ticks);
        return (int)(bucket % Capacity);
    }

    private void Widen()
    {
        var factor = StepTicks(_step + 1) / _widthTicks;
        _step++;
        _widthTicks *= factor;
        if (_lo > _hi)
        {
            return;
        }

        foreach (var s in _series.Values)
        {
            Merge(s.Flushes, factor);
            Merge(s.Waits, factor);
            Merge(s.WaitTicks, factor);
            foreach (var (_, ticks) in s.Apps)
            {
                Merge(ticks, factor);
            }
        }

        _lo /= factor;
        _hi /= factor;
    }

    /// <summary>Buckets b of the old width become b / factor; slots are bucket numbers modulo the capacity.</summary>
    private void Merge(long[] values, long factor)
    {
        Array.Clear(_scratch);
        for (var b = _lo; b <= _hi; b++)
        {
            _scratch[(int)(b / factor % Capacity)] += values[(int)(b % Capacity)];
        }

        Array.Copy(_scratch, values, Capacity);
    }

    private sealed class Series(string instance, int databaseId)
    {
        public string Instance { get; } = instance;

        public int DatabaseId { get; } = databaseId;

        public long[] Flushes { get; } = new long[Capacity];

        public long[] Waits { get; } = new long[Capacity];

        public long[] WaitTicks { get; } = new long[Capacity];

        /// <summary>WRITELOG time per bucket of each application, in first-seen order (at most <see cref="MaxApplications"/>, then other).</summary>
        public List<(string Name, long[] Ticks)> Apps { get; } = [];

        /// <summary>WRITELOG waits that carried the client_app_name action.</summary>
        public long WaitsWithApp { get; set; }

        private string? _lastApp;
        private long[]? _lastTicks;

        /// <summary>The buckets of <paramref name="app"/>; allocates only on an application's first sight.</summary>
        public long[] AppTicks(string app)
        {
            // Names are interned by the reader, and waits come in runs of one application: compare references first.
            if (ReferenceEquals(app, _lastApp))
            {
                return _lastTicks!;
            }

            var name = app.Length == 0 ? OtherApplication : app;
            long[]? found = null;
            foreach (var (n, t) in Apps)
            {
                if (ReferenceEquals(n, name) || n == name)
                {
                    found = t;
                    break;
                }
            }

            if (found is null)
            {
                if (Apps.Count < MaxApplications || name == OtherApplication)
                {
                    found = new long[Capacity];
                    Apps.Add((name, found));
                }
                else
                {
                    found = AppTicks(OtherApplication);
                }
            }

            _lastApp = app;
            _lastTicks = found;
            return found;
        }
    }
}

/// <summary>One application's WRITELOG time per bucket (ticks), on its database's timeline.</summary>
/// <param name="Application">The client_app_name, or <see cref="TimeSeriesRecorder.OtherApplication"/>.</param>
/// <param name="WriteLogTicks">Time waited on WRITELOG per bucket, in ticks (100 ns).</param>
internal sealed record ApplicationTimeSeries(string Application, long[] WriteLogTicks)
{
    /// <summary>Seconds waited in all.</summary>
    public double TotalSeconds => WriteLogTicks.Sum() / (double)TimeSpan.TicksPerSecond;
}

/// <summary>One database's counts per time bucket.</summary>
/// <param name="Start">Start of the first bucket (UTC).</param>
/// <param name="Width">Width of every bucket.</param>
/// <param name="Flushes">log_flush_start events per bucket.</param>
/// <param name="WriteLogWaits">Completed WRITELOG waits per bucket.</param>
/// <param name="WriteLogTicks">Time waited on WRITELOG per bucket, in ticks (100 ns).</param>
/// <param name="Seconds">Seconds of each bucket inside the recorded time range (less than the width at the edges).</param>
internal sealed record DatabaseTimeSeries(DateTime Start, TimeSpan Width, long[] Flushes, long[] WriteLogWaits, long[] WriteLogTicks, double[] Seconds)
{
    /// <summary>Buckets.</summary>
    public int Count => Flushes.Length;

    /// <summary>Flushes per second in bucket <paramref name="i"/>.</summary>
    public double FlushesPerSecond(int i) => PerSecond(Flushes[i], i);

    /// <summary>WRITELOG waits per second in bucket <paramref name="i"/>.</summary>
    public double WaitsPerSecond(int i) => PerSecond(WriteLogWaits[i], i);

    /// <summary>Seconds spent waiting on WRITELOG per second of bucket <paramref name="i"/> (summed over sessions: 2 = two sessions always waiting).</summary>
    public double WaitSecondsPerSecond(int i) => PerSecond(WriteLogTicks[i] / (double)TimeSpan.TicksPerSecond, i);

    /// <summary>Average WRITELOG wait in bucket <paramref name="i"/>, milliseconds (0 without waits).</summary>
    public double AverageWaitMs(int i) => WriteLogWaits[i] > 0 ? WriteLogTicks[i] / (double)WriteLogWaits[i] / TimeSpan.TicksPerMillisecond : 0;

    /// <summary>
    /// WRITELOG time per bucket by application: the top <see cref="TimeSeriesRecorder.TopApplicationCount"/> by time waited, then other;
    /// empty when no wait carried the client_app_name action (<see cref="WaitsWithApplication"/> is 0).
    /// </summary>
    public IReadOnlyList<ApplicationTimeSeries> Applications { get; init; } = [];

    /// <summary>WRITELOG waits that carried the client_app_name action (0: the session did not collect it).</summary>
    public long WaitsWithApplication { get; init; }

    /// <summary>Seconds one application waited on WRITELOG per second of bucket <paramref name="i"/>.</summary>
    public double WaitSecondsPerSecond(ApplicationTimeSeries app, int i) => PerSecond(app.WriteLogTicks[i] / (double)TimeSpan.TicksPerSecond, i);

    private double PerSecond(double value, int i) => Seconds[i] > 0 ? value / Seconds[i] : 0;
}

using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// One database's WRITELOG time by client application (the wait events' <c>sqlserver.client_app_name</c>), bounded to
/// the <see cref="Top"/> applications plus <see cref="OtherName"/>, whatever the applications are called. Guarded by the
/// aggregator's lock.
/// </summary>
/// <remarks>
/// <para>
/// How the top is chosen: free slots are taken by applications as they first wait, so the first five show at once.
/// Every <see cref="Window"/> of event time the set is chosen again, by WRITELOG time over the last two windows (a
/// sliding ten minutes; ties keep the incumbent, then ordinal name order); an application that did not wait in those
/// ten minutes leaves its slot. So at most <see cref="Top"/> + 1 series per database at any read, and at most
/// <see cref="Top"/> new series per database per window.
/// </para>
/// <para>
/// Each exported value is cumulative and only grows: an application's series counts the time it waited while it was
/// chosen; <c>other</c> counts every other wait (the applications not chosen, those past <see cref="MaxTracked"/>, and
/// waits that carried no application). A series that leaves the top stops being reported and resumes from its own total
/// if it comes back while still tracked, so rates stay true; an application forgotten after ten idle minutes starts again
/// from zero (a counter reset, which <c>rate()</c> handles).
/// </para>
/// </remarks>
internal sealed class ApplicationWaits
{
    /// <summary>Applications exported per database besides <c>other</c>.</summary>
    public const int Top = MetricAttributes.TopApplications;

    /// <summary>Applications whose recent time is kept per database to rank them; the rest count under <c>other</c> only.</summary>
    public const int MaxTracked = 64;

    /// <summary>The application label value of everything not in the top.</summary>
    public const string OtherName = MetricAttributes.OtherApplication;

    /// <summary>How often the top is chosen again (event time).</summary>
    public static readonly TimeSpan Window = TimeSpan.FromMinutes(5);

    private readonly DatabaseEvents _database;
    private readonly Dictionary<string, Tally> _tracked = new(StringComparer.Ordinal);
    private readonly List<Tally> _rank = [];
    private long _windowEndTicks;
    private int _chosen;

    public ApplicationWaits(DatabaseEvents database)
    {
        _database = database;
        Other = new Tally(OtherName) { Chosen = true };
        Other.Tags = Tags(OtherName);
    }

    /// <summary>Everything not attributed to a chosen application.</summary>
    public Tally Other { get; }

    /// <summary>Times the top was chosen again.</summary>
    public long Rechosen { get; private set; }

    /// <summary>The chosen applications (at most <see cref="Top"/>), then <see cref="Other"/>: what a read exports.</summary>
    public IEnumerable<Tally> Exported
    {
        get
        {
            foreach (var t in _tracked.Values)
            {
                if (t.Chosen)
                {
                    yield return t;
                }
            }

            yield return Other;
        }
    }

    /// <summary>Adds one WRITELOG wait of <paramref name="app"/> (null or empty: none sent) at <paramref name="ticks"/> (UTC).</summary>
    public void Add(string? app, double seconds, long ticks)
    {
        if (ticks >= _windowEndTicks)
        {
            Rotate(ticks);
        }

        if (string.IsNullOrEmpty(app) || app == OtherName)
        {
            // An application really called "other" shares the bucket: a label value cannot tell the two apart.
            Other.Add(seconds);
            return;
        }

        if (!_tracked.TryGetValue(app, out var tally))
        {
            if (_tracked.Count >= MaxTracked)
            {
                Other.Add(seconds);
                return;
            }

            tally = new Tally(app); // once per application per database (bounded by MaxTracked)
            _tracked[app] = tally;
        }

        tally.Current += seconds;
        if (!tally.Chosen && _chosen < Top)
        {
            Choose(tally);
        }

        if (tally.Chosen)
        {
            tally.Add(seconds);
        }
        else
        {
            Other.Add(seconds);
        }
    }

    /// <summary>The database's name changed: the series' tags are rebuilt.</summary>
    public void Renamed()
    {
        Other.Tags = Tags(OtherName);
        foreach (var t in _tracked.Values)
        {
            if (t.Tags is not null)
            {
                t.Tags = Tags(t.Name);
            }
        }
    }

    private void Choose(Tally tally)
    {
        tally.Chosen = true;
        tally.Tags ??= Tags(tally.Name);
        _chosen++;
    }

    /// <summary>Ends a window: chooses the top again by the last two windows' time and forgets applications idle in both.</summary>
    private void Rotate(long ticks)
    {
        var first = _windowEndTicks == 0;
        _windowEndTicks = ticks + Window.Ticks;
        if (first)
        {
            return;
        }

        Rechosen++;
        _rank.Clear();
        _rank.AddRange(_tracked.Values);
        _rank.Sort(static (a, b) =>
        {
            var c = (b.Current + b.Previous).CompareTo(a.Current + a.Previous);
            if (c == 0)
            {
                c = b.Chosen.CompareTo(a.Chosen);
            }

            return c != 0 ? c : string.CompareOrdinal(a.Name, b.Name);
        });
        _chosen = 0;
        for (var i = 0; i < _rank.Count; i++)
        {
            var t = _rank[i];
            var recent = t.Current + t.Previous > 0;
            t.Chosen = false;
            if (recent && _chosen < Top)
            {
                Choose(t);
            }
            else if (!recent)
            {
                _tracked.Remove(t.Name);
            }

            t.Previous = t.Current;
            t.Current = 0;
        }

        _rank.Clear();
    }

    private KeyValuePair<string, object?>[] Tags(string app) =>
        [new(MetricAttributes.Instance, _database.Instance.ExportName), new(MetricAttributes.Database, _database.ExportName), new(MetricAttributes.Application, MetricAttributes.Limit(app))];

    /// <summary>One application's WRITELOG time on one database.</summary>
    internal sealed class Tally(string name)
    {
        public string Name { get; } = name;

        /// <summary>WRITELOG seconds while chosen (cumulative, exported).</summary>
        public double Seconds { get; private set; }

        /// <summary>WRITELOG waits while chosen (cumulative, exported).</summary>
        public long Waits { get; private set; }

        /// <summary>Seconds in the current window (ranking).</summary>
        public double Current { get; set; }

        /// <summary>Seconds in the previous window (ranking).</summary>
        public double Previous { get; set; }

        public bool Chosen { get; set; }

        public KeyValuePair<string, object?>[]? Tags { get; set; }

        /// <summary>The name as exported (cut once, when the tags were built); the name itself before it was ever chosen.</summary>
        public string ExportName => Tags is { } t ? (string)t[2].Value! : Name;

        public void Add(double seconds)
        {
            Seconds += seconds;
            Waits++;
        }
    }
}

using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// How <c>analyze</c> and the HTML report bound WRITELOG time by application, with the live metric's bound
/// (<see cref="MetricAttributes.TopApplications"/>, <see cref="MetricAttributes.OtherApplication"/>): the
/// <see cref="Top"/> applications by time waited, then <see cref="OtherName"/> for the rest and for waits whose
/// session sent no name. Offline the whole input is one range, so the top is ranked by the total time, where the
/// metric ranks by recent windows.
/// </summary>
internal static class ApplicationRanking
{
    /// <summary>Applications shown per database besides <see cref="OtherName"/>: the metric's bound.</summary>
    public const int Top = MetricAttributes.TopApplications;

    /// <summary>The rest of the applications, and waits whose application sent no name, as the metric labels them.</summary>
    public const string OtherName = MetricAttributes.OtherApplication;

    /// <summary>
    /// Splits <paramref name="apps"/> into the <see cref="Top"/> by <paramref name="ticks"/> (most first; equal times in
    /// ordinal name order, so the choice does not depend on the order they were seen) and the rest, which belong to
    /// <see cref="OtherName"/>; an entry already named <see cref="OtherName"/> is always in the rest (a label value cannot
    /// tell an application called "other" from the bucket).
    /// </summary>
    public static (List<T> Top, List<T> Others) Rank<T>(IEnumerable<T> apps, Func<T, string> name, Func<T, long> ticks)
    {
        var all = apps.ToList();
        var ranked = all.Where(a => name(a) != OtherName).OrderByDescending(ticks).ThenBy(name, StringComparer.Ordinal).ToList();
        var rest = all.Where(a => name(a) == OtherName).Concat(ranked.Skip(Top)).ToList();
        return ([.. ranked.Take(Top)], rest);
    }
}

/// <summary>
/// One database's WRITELOG waits and time by client application (the wait event's <c>sqlserver.client_app_name</c>
/// action, an NDJSON recording's <c>app</c>), for <c>analyze</c>'s report. Every name is kept apart up to
/// <see cref="MaxApplications"/> (the reader's own bound on distinct names), so partial tallies of reading threads merge
/// exactly: the totals, and so the top 5, do not depend on how the events were split. Waits without the action are
/// counted too, so shares are of the database's whole WRITELOG time.
/// </summary>
/// <remarks>Not thread-safe (one per database and reading thread). Adding allocates only on an application's first sight.</remarks>
internal sealed class ApplicationWriteLog
{
    /// <summary>
    /// Names kept apart per database; later names count under <see cref="ApplicationRanking.OtherName"/>. The reader's
    /// table of names (<see cref="ClientAppNames.Capacity"/>) holds no more, and a smaller bound here would make which
    /// names are kept, and so the report, depend on how the buffers were split between threads (SQL Agent job steps alone
    /// send a name per job).
    /// </summary>
    public const int MaxApplications = ClientAppNames.Capacity;

    private Dictionary<string, Totals>? _byName;
    private string? _lastName;
    private Totals? _last;

    /// <summary>Waits without a name (empty), named "other", or past <see cref="MaxApplications"/>.</summary>
    public Totals Other { get; } = new();

    /// <summary>Waits that carried no application at all (the session did not collect the action).</summary>
    public Totals WithoutApplication { get; } = new();

    /// <summary>WRITELOG waits that carried the action (with a name or an empty one).</summary>
    public long WaitsWithApplication { get; private set; }

    /// <summary>Ticks waited by every wait, with the action or without.</summary>
    public long TotalTicks
    {
        get
        {
            var total = Saturate(WithoutApplication.Ticks, Other.Ticks);
            foreach (var (_, totals) in Named)
            {
                total = Saturate(total, totals.Ticks);
            }

            return total;
        }
    }

    /// <summary>The named applications kept apart (no order).</summary>
    public IEnumerable<KeyValuePair<string, Totals>> Named => _byName ?? [];

    /// <summary>
    /// A WRITELOG wait of <paramref name="ticks"/> (100 ns) of <paramref name="app"/>: null when the wait carried no
    /// application, empty when the application sent none (counted as other, as the metric does).
    /// </summary>
    public void Add(string? app, long ticks)
    {
        if (app is null)
        {
            WithoutApplication.Add(1, ticks);
            return;
        }

        WaitsWithApplication++;

        // Names are interned by the reader and waits come in runs of one application: compare references first.
        if (!ReferenceEquals(app, _lastName))
        {
            _lastName = app;
            _last = Find(app);
        }

        _last!.Add(1, ticks);
    }

    /// <summary>Adds <paramref name="other"/>'s waits (the same database, another thread's share).</summary>
    public void AddFrom(ApplicationWriteLog other)
    {
        WaitsWithApplication += other.WaitsWithApplication;
        WithoutApplication.Add(other.WithoutApplication.Waits, other.WithoutApplication.Ticks);
        Other.Add(other.Other.Waits, other.Other.Ticks);
        foreach (var (name, totals) in other.Named)
        {
            Find(name).Add(totals.Waits, totals.Ticks);
        }
    }

    /// <summary>
    /// The <see cref="ApplicationRanking.Top"/> applications by time waited, then <see cref="ApplicationRanking.OtherName"/>
    /// (when any of its waits was counted), each with its share of the database's whole WRITELOG time; empty when no wait
    /// carried the action.
    /// </summary>
    public IReadOnlyList<ApplicationShare> Top()
    {
        if (WaitsWithApplication == 0)
        {
            return [];
        }

        var total = TotalTicks;
        var (top, rest) = ApplicationRanking.Rank(Named, a => a.Key, a => a.Value.Ticks);
        var result = top.Select(a => Share(a.Key, a.Value.Waits, a.Value.Ticks, total)).ToList();
        var other = new Totals();
        other.Add(Other.Waits, Other.Ticks);
        foreach (var (_, totals) in rest)
        {
            other.Add(totals.Waits, totals.Ticks);
        }

        if (other.Waits > 0)
        {
            result.Add(Share(ApplicationRanking.OtherName, other.Waits, other.Ticks, total));
        }

        return result;
    }

    private static ApplicationShare Share(string name, long waits, long ticks, long total) =>
        new(name, waits, ticks / (double)TimeSpan.TicksPerSecond, total > 0 ? ticks / (double)total : 0);

    private Totals Find(string app)
    {
        if (app.Length == 0 || app == ApplicationRanking.OtherName)
        {
            return Other;
        }

        _byName ??= new Dictionary<string, Totals>(StringComparer.Ordinal);
        if (_byName.TryGetValue(app, out var totals))
        {
            return totals;
        }

        if (_byName.Count >= MaxApplications)
        {
            return Other;
        }

        totals = new Totals();
        _byName[app] = totals;
        return totals;
    }

    private static long Saturate(long a, long b) => a + b is var s && s < a ? long.MaxValue : s;

    /// <summary>Waits and ticks waited; sums stop at <see cref="long.MaxValue"/> (the same in any order: every term is non-negative).</summary>
    internal sealed class Totals
    {
        /// <summary>Waits.</summary>
        public long Waits { get; private set; }

        /// <summary>Ticks (100 ns) waited.</summary>
        public long Ticks { get; private set; }

        /// <summary>Adds <paramref name="waits"/> waits of <paramref name="ticks"/> in all (a negative time counts as 0).</summary>
        public void Add(long waits, long ticks)
        {
            Waits += waits;
            Ticks = Saturate(Ticks, Math.Max(0, ticks));
        }
    }
}

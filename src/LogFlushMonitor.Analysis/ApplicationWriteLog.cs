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
/// One database's WRITELOG waits and time by one label of the wait events (the client application, the statement), for
/// <c>analyze</c>'s report. Every key is kept apart up to <see cref="MaxKeys"/>, so partial tallies of reading threads
/// merge exactly: the totals, and so the top 5, do not depend on how the events were split. Waits without the label are
/// counted too, so shares are of the database's whole WRITELOG time.
/// </summary>
/// <remarks>Not thread-safe (one per database and reading thread). Adding allocates only on a key's first sight.</remarks>
/// <typeparam name="TKey">What the waits are told apart by.</typeparam>
internal abstract class RankedWriteLog<TKey>
    where TKey : notnull
{
    private Dictionary<TKey, Totals>? _byKey;
    private TKey? _lastKey;
    private Totals? _last;

    /// <summary>Keys kept apart per database; later keys count under <see cref="ApplicationRanking.OtherName"/>.</summary>
    protected abstract int MaxKeys { get; }

    /// <summary>Waits without a key (empty, 0), named "other", or past <see cref="MaxKeys"/>.</summary>
    public Totals Other { get; } = new();

    /// <summary>Waits that carried no label at all (the session did not collect the action).</summary>
    public Totals Without { get; } = new();

    /// <summary>WRITELOG waits that carried the label (with a key or an empty one).</summary>
    public long WaitsWith { get; private set; }

    /// <summary>Ticks waited by every wait, with the label or without.</summary>
    public long TotalTicks
    {
        get
        {
            var total = Saturate(Without.Ticks, Other.Ticks);
            foreach (var (_, totals) in Named)
            {
                total = Saturate(total, totals.Ticks);
            }

            return total;
        }
    }

    /// <summary>The keys kept apart (no order).</summary>
    public IEnumerable<KeyValuePair<TKey, Totals>> Named => _byKey ?? [];

    /// <summary>Whether <paramref name="key"/> names nothing (counted as other).</summary>
    protected abstract bool IsOther(TKey key);

    /// <summary>How <paramref name="key"/> is shown.</summary>
    protected abstract string NameOf(TKey key);

    /// <summary>Whether <paramref name="key"/> is the key of the last wait (a cheap check first: waits come in runs).</summary>
    protected abstract bool IsLast(TKey key, TKey? last);

    /// <summary>A WRITELOG wait of <paramref name="ticks"/> (100 ns): <paramref name="carried"/> false when the wait carried no label.</summary>
    public void Add(bool carried, TKey key, long ticks)
    {
        if (!carried)
        {
            Without.Add(1, ticks);
            return;
        }

        WaitsWith++;
        if (_last is null || !IsLast(key, _lastKey))
        {
            _lastKey = key;
            _last = Find(key);
        }

        _last.Add(1, ticks);
    }

    /// <summary>Adds <paramref name="other"/>'s waits (the same database, another thread's share).</summary>
    public void AddFrom(RankedWriteLog<TKey> other)
    {
        WaitsWith += other.WaitsWith;
        Without.Add(other.Without.Waits, other.Without.Ticks);
        Other.Add(other.Other.Waits, other.Other.Ticks);
        foreach (var (key, totals) in other.Named)
        {
            Find(key).Add(totals.Waits, totals.Ticks);
        }
    }

    /// <summary>
    /// The <see cref="ApplicationRanking.Top"/> keys by time waited, then <see cref="ApplicationRanking.OtherName"/> (when any
    /// of its waits was counted), each with its share of the database's whole WRITELOG time; empty when no wait carried the
    /// label.
    /// </summary>
    public IReadOnlyList<WriteLogShare> Top()
    {
        if (WaitsWith == 0)
        {
            return [];
        }

        var total = TotalTicks;
        var (top, rest) = ApplicationRanking.Rank(Named.Select(a => (Name: NameOf(a.Key), a.Value)), a => a.Name, a => a.Value.Ticks);
        var result = top.Select(a => Share(a.Name, a.Value.Waits, a.Value.Ticks, total)).ToList();
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

    private static WriteLogShare Share(string name, long waits, long ticks, long total) =>
        new(name, waits, ticks / (double)TimeSpan.TicksPerSecond, total > 0 ? ticks / (double)total : 0);

    private Totals Find(TKey key)
    {
        if (IsOther(key))
        {
            return Other;
        }

        _byKey ??= [];
        if (_byKey.TryGetValue(key, out var totals))
        {
            return totals;
        }

        if (_byKey.Count >= MaxKeys)
        {
            return Other;
        }

        totals = new Totals();
        _byKey[key] = totals;
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

/// <summary>
/// One database's WRITELOG waits and time by client application (the wait event's <c>sqlserver.client_app_name</c>
/// action, an NDJSON recording's <c>app</c>).
/// </summary>
internal sealed class ApplicationWriteLog : RankedWriteLog<string>
{
    /// <summary>
    /// Names kept apart per database; later names count under <see cref="ApplicationRanking.OtherName"/>. The reader's
    /// table of names (<see cref="ClientAppNames.Capacity"/>) holds no more, and a smaller bound here would make which
    /// names are kept, and so the report, depend on how the buffers were split between threads (SQL Agent job steps alone
    /// send a name per job).
    /// </summary>
    public const int MaxApplications = ClientAppNames.Capacity;

    /// <summary>WRITELOG waits that carried the client_app_name action (with a name or an empty one).</summary>
    public long WaitsWithApplication => WaitsWith;

    protected override int MaxKeys => MaxApplications;

    /// <summary>
    /// A WRITELOG wait of <paramref name="ticks"/> (100 ns) of <paramref name="app"/>: null when the wait carried no
    /// application, empty when the application sent none (counted as other, as the metric does).
    /// </summary>
    public void Add(string? app, long ticks) => Add(app is not null, app ?? "", ticks);

    protected override bool IsOther(string key) => key.Length == 0 || key == ApplicationRanking.OtherName;

    protected override string NameOf(string key) => key;

    // Names are interned by the reader: a reference check first.
    protected override bool IsLast(string key, string? last) => ReferenceEquals(key, last);
}

/// <summary>
/// One database's WRITELOG waits and time by statement (the wait event's <c>sqlserver.query_hash</c> or
/// <c>query_hash_signed</c> action, an NDJSON recording's <c>query_hash</c>); a task without a statement hash (0) counts as
/// other, as the metric does.
/// </summary>
internal sealed class StatementWriteLog : RankedWriteLog<ulong>
{
    /// <summary>
    /// Statements kept apart per database; later ones count under other. 10,000 distinct statements of one database are
    /// about 600 KB; an input with more (a workload of unparameterized statements, each its own hash) shows the first 4,096
    /// and puts the rest in other, whatever the split between threads, as long as no thread saw more.
    /// </summary>
    public const int MaxStatements = 4096;

    protected override int MaxKeys => MaxStatements;

    /// <summary>A WRITELOG wait of <paramref name="ticks"/> of the statement <paramref name="hash"/> (null: the wait carried no query_hash).</summary>
    public void Add(ulong? hash, long ticks) => Add(hash.HasValue, hash.GetValueOrDefault(), ticks);

    protected override bool IsOther(ulong key) => key == 0;

    protected override string NameOf(ulong key) => Core.Samples.QueryHashes.Format(key);

    protected override bool IsLast(ulong key, ulong last) => key == last;
}

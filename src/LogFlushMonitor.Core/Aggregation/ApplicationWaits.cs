using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// One database's figure by one label, bounded to the <see cref="Top"/> keys plus <see cref="OtherName"/>, whatever the
/// keys are: WRITELOG time by client application and by statement (the wait events), log bytes by statement (Query Store).
/// Guarded by the aggregator's lock.
/// </summary>
/// <remarks>
/// <para>
/// How the top is chosen: free slots are taken by keys as they first wait, so the first five show at once. Every
/// <see cref="Window"/> of event time the set is chosen again, by WRITELOG time over the last two windows (a sliding ten
/// minutes; ties keep the incumbent, then the key order); a key that did not wait in those ten minutes leaves its slot.
/// So at most <see cref="Top"/> + 1 series per database at any read, and at most <see cref="Top"/> new series per
/// database per window.
/// </para>
/// <para>
/// Each exported value is cumulative and only grows: a key's series counts its amount (seconds waited, log bytes) while it
/// was chosen; <c>other</c> counts every other amount (the keys not chosen, those past <see cref="MaxTracked"/>, and what
/// carried no key). A series that leaves the top stops being reported and resumes from its own total if it comes back while still
/// tracked, so rates stay true; a key forgotten after ten idle minutes starts again from zero (a counter reset, which
/// <c>rate()</c> handles). A key's label value is made once, when it is first chosen: the per-event path allocates only
/// when a key is first tracked.
/// </para>
/// </remarks>
/// <typeparam name="TKey">What the amounts are told apart by.</typeparam>
internal abstract class TopSeries<TKey>
    where TKey : notnull
{
    /// <summary>Keys exported per database besides <c>other</c>.</summary>
    public const int Top = MetricAttributes.TopApplications;

    /// <summary>Keys whose recent time is kept per database to rank them; the rest count under <c>other</c> only.</summary>
    public const int MaxTracked = 64;

    /// <summary>The label value of everything not in the top.</summary>
    public const string OtherName = MetricAttributes.OtherApplication;

    /// <summary>How often the top is chosen again (event time).</summary>
    public static readonly TimeSpan Window = TimeSpan.FromMinutes(5);

    private readonly Func<string, KeyValuePair<string, object?>[]> _tags;
    private readonly IComparer<TKey> _order;
    private readonly Dictionary<TKey, Tally> _tracked;
    private readonly List<Tally> _rank = [];
    private long _windowEndTicks;
    private int _chosen;

    /// <summary>A set whose series are tagged by <paramref name="tags"/> of a label value (read again when the database is renamed).</summary>
    protected TopSeries(Func<string, KeyValuePair<string, object?>[]> tags, IEqualityComparer<TKey> equality, IComparer<TKey> order)
    {
        _tags = tags;
        _order = order;
        _tracked = new Dictionary<TKey, Tally>(equality);
        Other = new Tally(default!, OtherName) { Chosen = true };
        Other.Tags = Tags(OtherName);
    }

    /// <summary>Everything not attributed to a chosen key.</summary>
    public Tally Other { get; }

    /// <summary>Times the top was chosen again.</summary>
    public long Rechosen { get; private set; }

    /// <summary>Keys tracked now (at most <see cref="MaxTracked"/>).</summary>
    public int Tracked => _tracked.Count;

    /// <summary>The chosen keys (at most <see cref="Top"/>), then <see cref="Other"/>: what a read exports.</summary>
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

    /// <summary>
    /// Adds <paramref name="amount"/> (and <paramref name="count"/> events) of <paramref name="key"/> (<paramref name="named"/>
    /// false: none, counted as other) at <paramref name="ticks"/> (UTC).
    /// </summary>
    protected void Add(TKey key, bool named, double amount, long count, long ticks)
    {
        if (ticks >= _windowEndTicks)
        {
            Rotate(ticks);
        }

        if (!named)
        {
            Other.Add(amount, count);
            return;
        }

        if (!_tracked.TryGetValue(key, out var tally))
        {
            if (_tracked.Count >= MaxTracked)
            {
                Other.Add(amount, count);
                return;
            }

            tally = new Tally(key, null); // once per key per database (bounded by MaxTracked)
            _tracked[key] = tally;
        }

        tally.Current += amount;
        if (!tally.Chosen && _chosen < Top)
        {
            Choose(tally);
        }

        if (tally.Chosen)
        {
            tally.Add(amount, count);
        }
        else
        {
            Other.Add(amount, count);
        }
    }

    /// <summary>Adds <paramref name="amount"/> that belongs to no key (counted under other).</summary>
    public void AddOther(double amount, long count) => Other.Add(amount, count);

    /// <summary>The label value of <paramref name="key"/> (cut to the attribute length).</summary>
    protected abstract string Label(TKey key);

    /// <summary>The database's name changed: the series' tags are rebuilt.</summary>
    public void Renamed()
    {
        Other.Tags = Tags(OtherName);
        foreach (var t in _tracked.Values)
        {
            if (t.Tags is not null)
            {
                t.Tags = Tags(t.ExportName);
            }
        }
    }

    private void Choose(Tally tally)
    {
        tally.Chosen = true;
        if (tally.Tags is null)
        {
            tally.Label ??= Label(tally.Key);
            tally.Tags = Tags(tally.Label);
        }

        _chosen++;
    }

    /// <summary>Ends a window: chooses the top again by the last two windows' time and forgets keys idle in both.</summary>
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
        _rank.Sort((a, b) =>
        {
            var c = (b.Current + b.Previous).CompareTo(a.Current + a.Previous);
            if (c == 0)
            {
                c = b.Chosen.CompareTo(a.Chosen);
            }

            return c != 0 ? c : _order.Compare(a.Key, b.Key);
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
                _tracked.Remove(t.Key);
            }

            t.Previous = t.Current;
            t.Current = 0;
        }

        _rank.Clear();
    }

    private KeyValuePair<string, object?>[] Tags(string label) => _tags(label);

    /// <summary>One key's figure on one database.</summary>
    internal sealed class Tally(TKey key, string? label)
    {
        public TKey Key { get; } = key;

        /// <summary>The label value, made when the key is first chosen (null before).</summary>
        public string? Label { get; set; } = label;

        /// <summary>The amount while chosen (WRITELOG seconds, log bytes; cumulative, exported).</summary>
        public double Amount { get; private set; }

        /// <summary>Its events while chosen (WRITELOG waits, executions; cumulative, exported).</summary>
        public long Count { get; private set; }

        /// <summary>The amount in the current window (ranking).</summary>
        public double Current { get; set; }

        /// <summary>The amount in the previous window (ranking).</summary>
        public double Previous { get; set; }

        public bool Chosen { get; set; }

        public KeyValuePair<string, object?>[]? Tags { get; set; }

        /// <summary>The label as exported (made once, when first chosen).</summary>
        public string ExportName => Label ?? Key.ToString() ?? "";

        public void Add(double amount, long count)
        {
            Amount += amount;
            Count += count;
        }
    }
}

/// <summary>
/// One database's WRITELOG time by client application (the wait events' <c>sqlserver.client_app_name</c>): the top 5 and
/// <c>other</c> (<see cref="TopSeries{TKey}"/>). An application really called "other" shares the bucket: a label value
/// cannot tell the two apart; a wait whose session sent no name counts as other.
/// </summary>
internal sealed class ApplicationWaits(DatabaseEvents database)
    : TopSeries<string>(label => database.LabelTags(MetricAttributes.Application, label), StringComparer.Ordinal, StringComparer.Ordinal)
{
    /// <summary>Adds one WRITELOG wait of <paramref name="app"/> (null or empty: none sent) at <paramref name="ticks"/> (UTC).</summary>
    public void Add(string? app, double seconds, long ticks) => Add(app ?? "", !string.IsNullOrEmpty(app) && app != OtherName, seconds, 1, ticks);

    protected override string Label(string key) => MetricAttributes.Limit(key);
}

/// <summary>
/// One database's WRITELOG time by statement (the wait events' <c>sqlserver.query_hash</c>): the top 5 query hashes and
/// <c>other</c> (<see cref="TopSeries{TKey}"/>); a wait of a task that ran no statement with a hash (0) counts as other.
/// The hash is the only label: a statement's text never becomes one.
/// </summary>
internal sealed class StatementWaits(DatabaseEvents database) : StatementSeries(label => database.LabelTags(MetricAttributes.QueryHash, label))
{
    /// <summary>Adds one WRITELOG wait of the statement <paramref name="hash"/> (0: none) at <paramref name="ticks"/> (UTC).</summary>
    public void Add(ulong hash, double seconds, long ticks) => Add(hash, seconds, 1, ticks);
}

/// <summary>A figure by statement (query hash): the top 5 and <c>other</c>; the hash 0 (no statement) counts as other.</summary>
internal class StatementSeries(Func<string, KeyValuePair<string, object?>[]> tags)
    : TopSeries<ulong>(tags, EqualityComparer<ulong>.Default, Comparer<ulong>.Default)
{
    /// <summary>Adds <paramref name="amount"/> and <paramref name="count"/> of the statement <paramref name="hash"/> (0: none) at <paramref name="ticks"/> (UTC).</summary>
    public void Add(ulong hash, double amount, long count, long ticks) => Add(hash, hash != 0, amount, count, ticks);

    protected override string Label(ulong key) => QueryHashes.Format(key);
}

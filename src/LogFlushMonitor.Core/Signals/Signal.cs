using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// One thing the monitor reads from SQL Server besides the event stream (a DMV, a target, a session's own figures), and
/// everything that follows from it, in one type: its T-SQL and how a poll reads it (<see cref="NewPoller"/>), its row, its
/// metric families (<see cref="Families"/>), its per-instance state and how a collect reads it (<see cref="NewState"/>),
/// its recording shape (<see cref="Recording"/>) and what <c>check</c> and <c>check --capture</c> send
/// (<see cref="Statements"/>). Every signal is registered once in <see cref="SignalRegistry.All"/>; the poller, the pipeline,
/// the recorder, the replay, the watchdog, the delivery tracking and the test sinks handle any signal's rows the same way
/// (<see cref="SignalBatch"/> through <see cref="Samples.IPollSink.OnBatch"/>). docs/architecture.md, "Adding a signal".
/// </summary>
public abstract class Signal
{
    private protected Signal(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        Name = name;
    }

    /// <summary>
    /// Its name where people read it: the poll kind in log lines and <c>check</c> (<c>counters</c>, <c>waits</c>, ...).
    /// </summary>
    public string Name { get; }

    /// <summary>Its position in <see cref="SignalRegistry.All"/> (the index of its state in each instance).</summary>
    public int Index { get; internal set; } = -1;

    /// <summary>The metric families its state fills at each collect, declared next to the code that fills them.</summary>
    public virtual IReadOnlyList<MetricDefinition> Families => [];

    /// <summary>
    /// The source component a delivery of its rows shows working (<see cref="SourceComponents"/>): the poller for a DMV,
    /// the stream for what stands in for events (histogram buckets); null when a delivery proves nothing of the source.
    /// </summary>
    public virtual string? Component => SourceComponents.Poller;

    /// <summary>How its rows are written to and read from an NDJSON recording, or null when it is not recorded.</summary>
    public virtual SignalRecording? Recording => null;

    /// <summary>
    /// The statements a poll of it sends on <paramref name="server"/> (what <c>check --capture</c> records and the test
    /// servers answer), in the order a poll sends them; none when the instance poller does not read it.
    /// </summary>
    public virtual IReadOnlyList<SignalStatement> Statements(ServerProfile server) => [];

    /// <summary>What it reads, for <c>check</c>'s line about a statement that failed.</summary>
    public virtual string Describe(ServerProfile server) => Name;

    /// <summary>Its part of one instance's poll, or null when the instance poller does not read it on <paramref name="server"/>.</summary>
    public virtual SignalPoller? NewPoller(PollContext context, ServerProfile server) => null;

    /// <summary>
    /// What <c>analyze</c> and <c>report</c> show of it from a recording (one view per analysis), or null when it is not
    /// recorded or adds nothing a person reads there.
    /// </summary>
    public virtual SignalView? NewView() => null;

    /// <summary>
    /// What <c>check</c> advises from the rows one poll of it read (<paramref name="batches"/>: this signal's batches of
    /// that poll), one line each: settings worth changing, never a failure. None by default.
    /// </summary>
    public virtual IReadOnlyList<string> CheckAdvice(IReadOnlyList<SignalBatch> batches) => [];

    /// <summary>Its state for one instance of the aggregation (created with the instance).</summary>
    internal abstract SignalState NewState(InstanceState instance);

    /// <inheritdoc />
    public override string ToString() => Name;
}

/// <summary>A signal whose rows are <typeparamref name="TRow"/>.</summary>
/// <typeparam name="TRow">One row as the signal reads it (what a batch carries and a recording line holds).</typeparam>
public abstract class Signal<TRow> : Signal
{
    private protected Signal(string name)
        : base(name)
    {
    }

    /// <summary>A batch of <paramref name="rows"/> read from <paramref name="instance"/> at <paramref name="timestampUtc"/>.</summary>
    /// <param name="instance">The instance the rows are from.</param>
    /// <param name="timestampUtc">When they were read.</param>
    /// <param name="rows">The rows (the batch keeps the array: do not change it afterwards).</param>
    /// <param name="endsPoll">Whether they are the whole of one poll: series the poll did not refresh are then retired.</param>
    public SignalBatch<TRow> Batch(string instance, DateTime timestampUtc, TRow[] rows, bool endsPoll) => new(this, instance, timestampUtc, rows, endsPoll);

    /// <summary>One row on its own (a replayed line, a test): it ends no poll.</summary>
    public SignalBatch<TRow> Row(string instance, DateTime timestampUtc, TRow row) => new(this, instance, timestampUtc, [row], endsPoll: false);

    /// <summary>The end of a poll whose rows were delivered before (a replayed <c>poll_completed</c> line).</summary>
    public SignalBatch<TRow> End(string instance, DateTime timestampUtc) => new(this, instance, timestampUtc, [], endsPoll: true);
}

/// <summary>One statement a signal sends: the name <c>check --capture</c> records it under, and its text.</summary>
/// <param name="Name">The capture's name for it (several variants of one statement share a name).</param>
/// <param name="Text">The T-SQL.</param>
/// <param name="View">What it reads, as log lines name it (<c>sys.dm_os_wait_stats</c>).</param>
/// <param name="Parameters">Its parameters by name (without @), or null.</param>
public sealed record SignalStatement(string Name, string Text, string View, IReadOnlyDictionary<string, object>? Parameters = null)
{
    private Dictionary<string, string>? _sources;

    /// <summary>The same statement with <paramref name="name"/> set to <paramref name="value"/>.</summary>
    public SignalStatement With(string name, object value) => this with { Parameters = new Dictionary<string, object>(StringComparer.Ordinal) { [name] = value } };

    /// <summary>
    /// What the answer's column <paramref name="alias"/> is made of in the statement, as a DBA reads it in the view: the
    /// view's column (<c>wait_time_ms</c> for <c>wait_time_ms AS WaitTimeMs</c>) or the expression
    /// (<c>DB_NAME(vfs.database_id)</c>); the alias itself when the text does not say.
    /// </summary>
    public string SourceOf(string alias) => (_sources ??= SelectListSources(Text)).GetValueOrDefault(alias, alias);

    /// <summary>Each <c>expression AS Alias</c> of the statement's first SELECT list, by alias (ignoring case).</summary>
    private static Dictionary<string, string> SelectListSources(string text)
    {
        var sources = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        var select = text.IndexOf("SELECT", StringComparison.OrdinalIgnoreCase);
        if (select < 0)
        {
            return sources;
        }

        // The items of the SELECT list: commas and FROM at parenthesis depth 0.
        var depth = 0;
        var start = select + "SELECT".Length;
        for (var i = start; i <= text.Length; i++)
        {
            var end = i == text.Length || (depth == 0 && (text[i] == ',' || IsWord(text, i, "FROM")));
            if (!end)
            {
                depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
                continue;
            }

            var item = string.Join(' ', text[start..i].Split((char[])[' ', '\r', '\n', '\t'], StringSplitOptions.RemoveEmptyEntries));
            var at = item.LastIndexOf(" AS ", StringComparison.OrdinalIgnoreCase);
            if (at > 0 && item[(at + 4)..] is var alias && alias.All(c => char.IsLetterOrDigit(c) || c == '_'))
            {
                var expression = item[..at];
                sources.TryAdd(alias, expression.All(c => char.IsLetterOrDigit(c) || c is '_' or '.') ? expression[(expression.LastIndexOf('.') + 1)..] : expression);
            }

            if (i == text.Length || text[i] != ',')
            {
                break;
            }

            start = i + 1;
        }

        return sources;
    }

    private static bool IsWord(string text, int i, string word) =>
        string.Compare(text, i, word, 0, word.Length, StringComparison.OrdinalIgnoreCase) == 0
        && (i == 0 || !char.IsLetterOrDigit(text[i - 1])) && (i + word.Length >= text.Length || !char.IsLetterOrDigit(text[i + word.Length]));
}

/// <summary>What a signal needs to know of the server it polls: the statements differ by edition and version.</summary>
/// <param name="AzureSqlDatabase">Azure SQL Database (its DMVs are the database's; no server-scoped views).</param>
/// <param name="MajorVersion">The major version (16 = SQL Server 2022), 0 when unknown.</param>
/// <param name="EngineEdition">SERVERPROPERTY('EngineEdition') (5 Azure SQL Database, 8 Managed Instance), 0 when unknown.</param>
/// <param name="Build">The build within the major version (5026 of <c>13.0.5026</c>, SQL Server 2016 SP2), 0 when unknown.</param>
public readonly record struct ServerProfile(bool AzureSqlDatabase, int MajorVersion, int EngineEdition = 0, int Build = 0)
{
    /// <summary>A SQL Server whose version is not known yet (the newest statements).</summary>
    public static ServerProfile SqlServer { get; } = new(false, 0);

    /// <summary>Azure SQL Database.</summary>
    public static ServerProfile Azure { get; } = new(true, 0);

    /// <summary>The profile of a server from its <c>ServerVersion</c> string (<c>16.00.4135</c>: major 16, build 4135).</summary>
    public static ServerProfile Of(bool azureSqlDatabase, string? serverVersion, int engineEdition = 0)
    {
        var parts = (serverVersion ?? "").Split('.');
        return new ServerProfile(azureSqlDatabase, Number(parts, 0), engineEdition, parts.Length > 2 ? Number(parts, 2) : 0);
    }

    private static int Number(string[] parts, int index) =>
        index < parts.Length && int.TryParse(parts[index], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var n) ? n : 0;
}

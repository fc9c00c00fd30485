using System.Data.Common;
using System.Globalization;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// One row of what the monitor's event session costs the server: an event of the session (<see cref="EventName"/> set:
/// <c>sys.dm_xe_session_events</c>, SQL Server 2022 and later) or the session itself (<see cref="EventName"/> null:
/// <c>sys.dm_xe_sessions</c>). Times are the server's microseconds.
/// </summary>
/// <param name="Session">The session's name (the monitor's, or one of its histogram sessions).</param>
/// <param name="EventName">The event (<c>log_flush_start</c>, ...), or null for the session's own row.</param>
/// <param name="FireCount">event_fire_count: times the event fired since the session started (0 without trace flag 9708).</param>
/// <param name="AverageUs">event_fire_average_time, µs (0 without trace flag 9708).</param>
/// <param name="MinUs">event_fire_min_time, µs.</param>
/// <param name="MaxUs">event_fire_max_time, µs.</param>
/// <param name="BufferBytes">total_buffer_size: the session's event buffers, bytes.</param>
/// <param name="RegularBuffers">total_regular_buffers.</param>
/// <param name="PendingBuffers">pending_buffers: full buffers waiting to be dispatched to the targets and the stream.</param>
public readonly record struct XeSessionCostRow(
    [property: JsonPropertyName("session"), JsonRequired] string Session,
    [property: JsonPropertyName("event")] string? EventName = null,
    [property: JsonPropertyName("fire_count")] long? FireCount = null,
    [property: JsonPropertyName("fire_average_us")] long? AverageUs = null,
    [property: JsonPropertyName("fire_min_us")] long? MinUs = null,
    [property: JsonPropertyName("fire_max_us")] long? MaxUs = null,
    [property: JsonPropertyName("buffer_bytes")] long? BufferBytes = null,
    [property: JsonPropertyName("regular_buffers")] long? RegularBuffers = null,
    [property: JsonPropertyName("pending_buffers")] long? PendingBuffers = null)
{
    /// <summary>
    /// Whether the fire count and average are filled: SQL Server fills them only with trace flag 9708 on (Microsoft's page
    /// of sys.dm_xe_session_events; SQLskills, "SQL Server 2022: measuring Extended Events performance impacts"), while the
    /// minimum and maximum are always kept. A count of 0 beside a maximum above 0 is the flag being off, not an idle event.
    /// </summary>
    public bool CountsKept => FireCount is > 0 || (FireCount == 0 && MaxUs is null or 0);
}

/// <summary>
/// What the monitor's event session costs the server, as the server measures it: per event of the session, how often it
/// fired and how long publishing it took (<c>sys.dm_xe_session_events</c>, SQL Server 2022 and later: count and average
/// only with trace flag 9708, minimum and maximum always; Azure SQL Database's database-scoped view keeps the minimum and
/// maximum, its count and average are "internal use only"), and the session's event buffers and the full ones waiting for
/// dispatch (<c>sys.dm_xe_sessions</c>, every version). The sessions read are the instance's own and, in histogram mode,
/// its <c>&lt;name&gt;_h…</c> sessions. The cost of an event is paid on the thread that fires it, the committing thread for
/// log_flush_start: docs/operations.md, "What the monitor costs the server", says how to read it and what lowers it.
/// </summary>
public sealed class XeSessionCostSignal : Signal<XeSessionCostRow>
{
    /// <summary>The sessions a statement reads: the instance's (<c>@name</c>) and its histogram sessions (<c>@name_h…</c>).</summary>
    private const string Sessions = "(s.name = @name OR (LEN(s.name) > LEN(@name) + 2 AND LEFT(s.name, LEN(@name) + 2) = @name + N'_h'))";

    /// <summary>The session's memory and dispatch backlog (every version). Parameter: <c>@name</c>.</summary>
    public static readonly SignalStatement ServerSessionStatement = new SignalStatement("xe_session_buffers", $"""
        SELECT s.name AS SessionName, CAST(s.total_buffer_size AS bigint) AS BufferBytes,
               CAST(s.total_regular_buffers AS bigint) AS RegularBuffers, CAST(s.pending_buffers AS bigint) AS PendingBuffers
        FROM sys.dm_xe_sessions AS s
        WHERE {Sessions}
        """, "sys.dm_xe_sessions").With("name", SignalSettings.Default.SessionName);

    /// <summary>Azure SQL Database: the database-scoped sessions' buffers. Parameter: <c>@name</c>.</summary>
    public static readonly SignalStatement DatabaseSessionStatement = new SignalStatement("xe_session_buffers", $"""
        SELECT s.name AS SessionName, CAST(s.total_buffer_size AS bigint) AS BufferBytes,
               CAST(s.total_regular_buffers AS bigint) AS RegularBuffers, CAST(s.pending_buffers AS bigint) AS PendingBuffers
        FROM sys.dm_xe_database_sessions AS s
        WHERE {Sessions}
        """, "sys.dm_xe_database_sessions").With("name", SignalSettings.Default.SessionName);

    /// <summary>
    /// Each event's publishing cost (SQL Server 2022 and later, and Managed Instance: the four columns "apply to SQL Server
    /// 2022 (16.x) and later"). Parameter: <c>@name</c>.
    /// </summary>
    public static readonly SignalStatement ServerEventsStatement = new SignalStatement("xe_session_events", $"""
        SELECT s.name AS SessionName, e.event_name AS EventName, e.event_fire_count AS FireCount,
               e.event_fire_average_time AS AverageUs, e.event_fire_min_time AS MinUs, e.event_fire_max_time AS MaxUs
        FROM sys.dm_xe_session_events AS e
        JOIN sys.dm_xe_sessions AS s ON s.address = e.event_session_address
        WHERE {Sessions}
        """, "sys.dm_xe_session_events").With("name", SignalSettings.Default.SessionName);

    /// <summary>
    /// Azure SQL Database: the minimum and maximum only (its page documents count and average as "internal use only").
    /// Parameter: <c>@name</c>.
    /// </summary>
    public static readonly SignalStatement DatabaseEventsStatement = new SignalStatement("xe_session_events", $"""
        SELECT s.name AS SessionName, e.event_name AS EventName, CAST(NULL AS bigint) AS FireCount,
               CAST(NULL AS bigint) AS AverageUs, e.event_fire_min_time AS MinUs, e.event_fire_max_time AS MaxUs
        FROM sys.dm_xe_database_session_events AS e
        JOIN sys.dm_xe_database_sessions AS s ON s.address = e.event_session_address
        WHERE {Sessions}
        """, "sys.dm_xe_database_session_events").With("name", SignalSettings.Default.SessionName);

    private static readonly string[] Inst = [Instance];
    private static readonly string[] InstEvent = [Instance, EventName];

    internal static readonly MetricDefinition Fires = new()
    {
        Name = "sqlserver.monitor.session.event.fires", Unit = "{event}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstEvent, Section = MetricSection.Monitor,
        Description = "Times each event of the monitor's event session fired on the server (sys.dm_xe_session_events.event_fire_count, SQL Server 2022+ with trace flag 9708), increase since monitoring began.",
        Meaning = "times each event of the monitor's session fired (was published) on the server: `event_fire_count` of `sys.dm_xe_session_events`, SQL Server 2022 and later, filled only with trace flag 9708 on (absent without it: a count the server does not keep is not exported as 0)",
        PromQL = "`rate(sqlserver_monitor_session_event_fires_total[5m])`",
    };

    internal static readonly MetricDefinition FireTime = new()
    {
        Name = "sqlserver.monitor.session.event.fire.time", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstEvent, Section = MetricSection.Monitor,
        Description = "Time the server spent publishing each event of the monitor's session (event_fire_count x event_fire_average_time of sys.dm_xe_session_events, SQL Server 2022+ with trace flag 9708), increase since monitoring began.",
        Meaning = "time the server spent publishing each event of the monitor's session: `event_fire_count` × `event_fire_average_time` (µs) of `sys.dm_xe_session_events`, SQL Server 2022 and later with trace flag 9708. Paid on the thread that fires the event: for `log_flush_start` the committing session's. Its rate is seconds of work a second (0.002 = 0.2 % of one core); divided by the fires' rate it is the average cost of one event",
        PromQL = "average µs per event: `1e6 * rate(sqlserver_monitor_session_event_fire_time_seconds_total[5m]) / rate(sqlserver_monitor_session_event_fires_total[5m])`",
    };

    internal static readonly MetricDefinition FireMax = new()
    {
        Name = "sqlserver.monitor.session.event.fire.max", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstEvent, Section = MetricSection.Monitor,
        Description = "The longest time publishing one event of the monitor's session took since the session started (event_fire_max_time of sys.dm_xe_session_events, SQL Server 2022+ and Azure SQL Database).",
        Meaning = "the longest time publishing one event took since the session started: `event_fire_max_time` (µs), SQL Server 2022 and later (no trace flag needed) and Azure SQL Database",
        PromQL = "`max by (sqlserver_instance_name, event_name) (sqlserver_monitor_session_event_fire_max_seconds)`",
    };

    internal static readonly MetricDefinition FireMin = new()
    {
        Name = "sqlserver.monitor.session.event.fire.min", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstEvent, Section = MetricSection.Monitor,
        Description = "The shortest time publishing one event of the monitor's session took since the session started (event_fire_min_time of sys.dm_xe_session_events, SQL Server 2022+ and Azure SQL Database).",
        Meaning = "the shortest time publishing one event took: `event_fire_min_time` (µs), as the maximum",
        PromQL = "`sqlserver_monitor_session_event_fire_min_seconds`",
    };

    internal static readonly MetricDefinition Memory = new()
    {
        Name = "sqlserver.monitor.session.memory", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
        Description = "Memory of the monitor's event session buffers on the server (sys.dm_xe_sessions.total_buffer_size), its histogram sessions included.",
        Meaning = "memory the server holds for the monitor's event session buffers: `total_buffer_size` of `sys.dm_xe_sessions` (its histogram sessions included); set by the session's `MAX_MEMORY` (`MaxMemoryKb`, 4 MB by default)",
        PromQL = "`sqlserver_monitor_session_memory_bytes`",
    };

    internal static readonly MetricDefinition PendingBuffers = new()
    {
        Name = "sqlserver.monitor.session.buffers.pending", Unit = "{buffer}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = Inst, Section = MetricSection.Monitor,
        Description = "Full event buffers of the monitor's session waiting to be dispatched (sys.dm_xe_sessions.pending_buffers), as of the last poll.",
        Meaning = "full buffers of the session waiting to be dispatched to its targets and the live stream: `pending_buffers` of `sys.dm_xe_sessions`. Staying above 0 means the dispatcher (or the monitor reading the stream) falls behind, and events will be dropped (`sqlserver.monitor.events.lost{loss_kind=\"server_dropped\"}`)",
        PromQL = "`max_over_time(sqlserver_monitor_session_buffers_pending[5m]) > 0`",
    };

    internal XeSessionCostSignal()
        : base("xe_session_cost")
    {
        Recording = new SignalRecording<XeSessionCostRow>(this, "xe_session_cost", "xe_session_cost", XeSessionCostJson.Default.XeSessionCostRow,
            r => r.Session is null ? "invalid field 'session': expected a string"
                : r.FireCount < 0 || r.AverageUs < 0 || r.MinUs < 0 || r.MaxUs < 0 || r.BufferBytes < 0 || r.PendingBuffers < 0 || r.RegularBuffers < 0
                    ? "invalid row: a count, a time or a size below zero"
                : null);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Fires, FireTime, FireMax, FireMin, Memory, PendingBuffers];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <summary>Whether <paramref name="server"/> keeps the per-event figures (SQL Server 2022 and later, Managed Instance, Azure SQL Database).</summary>
    public static bool KeepsEventCost(ServerProfile server) =>
        server.AzureSqlDatabase || server.EngineEdition is CountersSignal.AzureSqlDatabase or CountersSignal.AzureManagedInstance || server.MajorVersion is 0 or >= 16;

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => server.AzureSqlDatabase
        ? [DatabaseSessionStatement, DatabaseEventsStatement]
        : KeepsEventCost(server) ? [ServerSessionStatement, ServerEventsStatement] : [ServerSessionStatement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => server.AzureSqlDatabase
        ? "sys.dm_xe_database_sessions and sys.dm_xe_database_session_events (what the event session costs)"
        : "sys.dm_xe_sessions and sys.dm_xe_session_events (what the event session costs)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, server);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>
    /// Reads what the sessions of <paramref name="sessionName"/> cost on <paramref name="server"/> now: the session rows,
    /// then each event's (none before SQL Server 2022). <c>check</c> reads its temporary session with it.
    /// </summary>
    public static async Task<List<XeSessionCostRow>> ReadAsync(DbConnection connection, PollContext context, ServerProfile server, string sessionName, CancellationToken cancellationToken)
    {
        var rows = new List<XeSessionCostRow>();
        foreach (var statement in SignalRegistry.XeSessionCost.Statements(server))
        {
            var named = statement.With("name", sessionName);
            if (statement.Name == ServerSessionStatement.Name)
            {
                rows.AddRange(await SqlRows.ReadAsync(connection, context, named, c => new XeSessionCostRow(
                    c.String("SessionName"), BufferBytes: c.Int64OrNull("BufferBytes"), RegularBuffers: c.Int64OrNull("RegularBuffers"),
                    PendingBuffers: c.Int64OrNull("PendingBuffers")), cancellationToken).ConfigureAwait(false));
            }
            else
            {
                rows.AddRange(await SqlRows.ReadAsync(connection, context, named, c => new XeSessionCostRow(
                    c.String("SessionName"), c.String("EventName"), c.Int64OrNull("FireCount"), c.Int64OrNull("AverageUs"),
                    c.Int64OrNull("MinUs"), c.Int64OrNull("MaxUs")), cancellationToken).ConfigureAwait(false));
            }
        }

        return rows;
    }

    /// <summary>
    /// What the rows say, for a person (<c>check</c>, <c>workload --overhead</c>): per event how often it fired and how long
    /// publishing it took, then the buffers; what the server does not keep is said, not shown as 0.
    /// </summary>
    public static string Describe(IReadOnlyList<XeSessionCostRow> rows, ServerProfile server)
    {
        var ci = CultureInfo.InvariantCulture;
        var parts = new List<string>();
        var events = rows.Where(r => r.EventName is not null).GroupBy(r => r.EventName!, StringComparer.Ordinal).OrderBy(g => g.Key, StringComparer.Ordinal);
        var countsMissing = false;
        foreach (var e in events)
        {
            var max = e.Max(r => r.MaxUs ?? 0);
            var min = e.Min(r => r.MinUs ?? 0);
            if (e.All(r => r.CountsKept && r.FireCount is not null))
            {
                var fires = e.Sum(r => r.FireCount ?? 0);
                var us = e.Sum(r => (double)(r.FireCount ?? 0) * (r.AverageUs ?? 0));
                parts.Add(fires == 0
                    ? $"{e.Key} did not fire"
                    : string.Create(ci, $"{e.Key} fired {fires:N0} time(s), {us / fires:N1} µs on average (min {min:N0}, max {max:N0} µs), {us / 1e6:N3} s in all"));
            }
            else
            {
                countsMissing = true;
                parts.Add(string.Create(ci, $"{e.Key}: min {min:N0} µs, max {max:N0} µs"));
            }
        }

        if (!KeepsEventCost(server))
        {
            parts.Add($"the per-event cost is kept from SQL Server 2022 (this server is version {server.MajorVersion}): `logflushmonitor workload --overhead` measures it");
        }
        else if (countsMissing)
        {
            parts.Add(server.AzureSqlDatabase
                ? "Azure SQL Database keeps no fire count or average"
                : "fire counts and averages need trace flag 9708 (DBCC TRACEON (9708, -1), or -T9708 at startup)");
        }

        var sessions = rows.Where(r => r.EventName is null).ToList();
        if (sessions.Count > 0)
        {
            parts.Add(string.Create(ci, $"{sessions.Sum(r => r.BufferBytes ?? 0) / 1024.0 / 1024:N1} MB of event buffers, {sessions.Sum(r => r.PendingBuffers ?? 0):N0} full buffer(s) waiting for dispatch"));
        }

        return parts.Count == 0 ? "the session is not running" : string.Join("; ", parts);
    }

    /// <summary>Each event's cost over the recording: fires, fires a second, the average cost from the increases, the last maximum; the buffers.</summary>
    private sealed class View(string signal) : SignalView<XeSessionCostRow>
    {
        private readonly Dictionary<(string Instance, string Session, string Event), (CumulativeFigure Fires, CumulativeFigure TimeUs, long MaxUs, bool Counts)> _events = [];
        private readonly Dictionary<(string Instance, string Session), (long Bytes, long PendingMax)> _sessions = [];

        protected override void Observe(string instance, DateTime timestampUtc, in XeSessionCostRow row)
        {
            if (row.EventName is not { } name)
            {
                var s = _sessions.GetValueOrDefault((instance, row.Session));
                _sessions[(instance, row.Session)] = (row.BufferBytes ?? s.Bytes, Math.Max(s.PendingMax, row.PendingBuffers ?? 0));
                return;
            }

            var key = (instance, row.Session, name);
            var e = _events.GetValueOrDefault(key);
            if (row.CountsKept && row.FireCount is { } count)
            {
                e.Fires.Add(count, timestampUtc);
                e.TimeUs.Add(count * (row.AverageUs ?? 0), timestampUtc);
                e.Counts = true;
            }

            e.MaxUs = row.MaxUs ?? e.MaxUs;
            _events[key] = e;
        }

        public override SignalTable? Table()
        {
            if (_events.Count == 0 && _sessions.Count == 0)
            {
                return null;
            }

            var rows = _events.OrderBy(e => e.Key.Instance, StringComparer.Ordinal).ThenBy(e => e.Key.Session, StringComparer.Ordinal).ThenBy(e => e.Key.Event, StringComparer.Ordinal)
                .Select(e => (IReadOnlyList<object?>)[
                    e.Key.Instance, e.Key.Session, e.Key.Event,
                    e.Value.Counts ? e.Value.Fires.Increase : null, e.Value.Counts ? e.Value.Fires.PerSecond : null,
                    e.Value.Counts && e.Value.Fires.Increase > 0 ? (double)e.Value.TimeUs.Increase / e.Value.Fires.Increase : null,
                    e.Value.MaxUs, _sessions.TryGetValue((e.Key.Instance, e.Key.Session), out var s) ? s.Bytes : null])
                .Concat(_sessions.Where(s => !_events.Keys.Any(e => e.Instance == s.Key.Instance && e.Session == s.Key.Session))
                    .Select(s => (IReadOnlyList<object?>)[s.Key.Instance, s.Key.Session, null, null, null, null, null, s.Value.Bytes]));
            return new SignalTable(signal, "What the event session costs the server (sys.dm_xe_session_events, sys.dm_xe_sessions)",
                [new("instance"), new("session"), new("event"), new("fires over the recording"), new("fires", "/s"), new("average cost", "µs"), new("longest (last poll)", "µs"), new("session buffers", "B")],
                [.. rows],
                ["Fires and the average are the increase of event_fire_count and of event_fire_count x event_fire_average_time between the first and the last poll: SQL Server 2022 and later keep them with trace flag 9708 only (\"-\" without it). The longest is event_fire_max_time, kept without the flag."]);
        }
    }

    private sealed class Poller(XeSessionCostSignal signal, PollContext context, ServerProfile server) : SignalPoller(context)
    {
        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await ReadAsync(connection, Context, server, Context.Settings.SessionName, cancellationToken).ConfigureAwait(false);
            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. rows], endsPoll: true));
        }
    }

    /// <summary>
    /// Each (session, event)'s cumulative count and time, restart-safe (a session started again counts from zero), and the
    /// sessions' buffers as the last poll read them; what a poll no longer lists is retired.
    /// </summary>
    private sealed class State(InstanceState instance) : PolledState<XeSessionCostRow>
    {
        private readonly Dictionary<(string Session, string Event), EventSeries> _events = [];
        private readonly Dictionary<string, (int Stamp, long Bytes, long Pending)> _sessions = new(StringComparer.Ordinal);
        private readonly Dictionary<string, KeyValuePair<string, object?>[]> _eventTags = new(StringComparer.Ordinal);

        protected override void ApplyRow(SignalBatch<XeSessionCostRow> batch, in XeSessionCostRow row, SignalOutcome outcome)
        {
            if (row.EventName is not { } name)
            {
                _sessions[row.Session] = (Stamp, Math.Max(0, row.BufferBytes ?? 0), Math.Max(0, row.PendingBuffers ?? 0));
                return;
            }

            if (!_events.TryGetValue((row.Session, name), out var s))
            {
                s = new EventSeries(name);
                _events[(row.Session, name)] = s;
            }

            s.Stamp = Stamp;
            s.MinUs = row.MinUs;
            s.MaxUs = row.MaxUs;
            s.CountsKept = row.CountsKept && row.FireCount is not null;
            if (s.CountsKept)
            {
                var t = batch.TimestampUtc;
                s.Fires.Update(row.FireCount!.Value, t, instance.Epoch, instance.StartTimeUtc);
                s.TimeUs.Update(row.FireCount.Value * (row.AverageUs ?? 0), t, instance.Epoch, instance.StartTimeUtc);
                outcome.Check(instance, "event session cost", name, ("event_fire_count", row.FireCount.Value, s.Fires.LastVerdict));
            }
        }

        protected override void EndPoll(int keep, SignalBatch<XeSessionCostRow> batch, SignalOutcome outcome)
        {
            RemoveStale(_events, keep);
            foreach (var (session, s) in _sessions)
            {
                if (s.Stamp != keep)
                {
                    _sessions.Remove(session);
                }
            }
        }

        public override void Read(MeasurementBuffers into)
        {
            // Per event, over the instance's sessions (the stream's, and in histogram mode its per-database sessions).
            foreach (var group in _events.Values.GroupBy(s => s.Event, StringComparer.Ordinal))
            {
                var tags = Tags(group.Key);
                if (group.All(s => s.CountsKept))
                {
                    into.Add(Fires, group.Sum(s => s.Fires.Total), tags);
                    into.Add(FireTime, group.Sum(s => s.TimeUs.Total) / 1e6, tags);
                }

                if (group.Any(s => s.MaxUs is not null))
                {
                    into.Add(FireMax, group.Max(s => s.MaxUs ?? 0) / 1e6, tags);
                    into.Add(FireMin, group.Where(s => s.MinUs is not null).Select(s => s.MinUs!.Value).DefaultIfEmpty(0).Min() / 1e6, tags);
                }
            }

            if (_sessions.Count > 0)
            {
                into.Add(Memory, _sessions.Values.Sum(s => s.Bytes), instance.Tags);
                into.Add(PendingBuffers, _sessions.Values.Sum(s => s.Pending), instance.Tags);
            }
        }

        private KeyValuePair<string, object?>[] Tags(string eventName)
        {
            if (!_eventTags.TryGetValue(eventName, out var tags))
            {
                tags = [new(Instance, instance.ExportName), new(EventName, Limit(eventName))];
                _eventTags[eventName] = tags;
            }

            return tags;
        }

        private sealed class EventSeries(string eventName) : PolledSeries
        {
            public CumulativeTracker Fires;
            public CumulativeTracker TimeUs;

            public string Event { get; } = eventName;

            public long? MinUs { get; set; }

            public long? MaxUs { get; set; }

            public bool CountsKept { get; set; }
        }
    }
}

/// <summary>The xe_session_cost line's contract.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(XeSessionCostRow))]
internal sealed partial class XeSessionCostJson : JsonSerializerContext;

using System.Data.Common;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// One database on one availability replica as the local instance sees it (<c>sys.dm_hadr_database_replica_states</c>
/// with the replica, group and role): on a primary, one for its own database and one for each secondary's copy. An
/// instance without availability groups has none. A figure the server left NULL (a column the version lacks, a value it
/// does not know on this side) is null here and exported as no value, never as 0.
/// </summary>
/// <param name="DatabaseId">database_id (of the local database).</param>
/// <param name="DatabaseName">The database name.</param>
/// <param name="AvailabilityGroup">sys.availability_groups.name.</param>
/// <param name="Replica">sys.availability_replicas.replica_server_name: the instance hosting this copy.</param>
/// <param name="Role">role_desc of that replica (PRIMARY, SECONDARY, RESOLVING).</param>
/// <param name="AvailabilityMode">availability_mode_desc of that replica (SYNCHRONOUS_COMMIT, ASYNCHRONOUS_COMMIT, CONFIGURATION_ONLY).</param>
/// <param name="SynchronizationState">synchronization_state_desc (SYNCHRONIZED, SYNCHRONIZING, NOT SYNCHRONIZING, ...).</param>
/// <param name="LogSendQueueKb">log_send_queue_size: log not yet sent to the secondary, KB.</param>
/// <param name="LogSendRateKbPerSecond">log_send_rate: average send rate of the last active period, KB/s.</param>
/// <param name="RedoQueueKb">redo_queue_size: log hardened on the secondary and not yet redone, KB.</param>
/// <param name="RedoRateKbPerSecond">redo_rate: average redo rate, KB/s.</param>
/// <param name="SecondaryLagSeconds">secondary_lag_seconds (SQL Server 2016 and later): how far the secondary is behind, seconds.</param>
/// <param name="LastHardenedAgeSeconds">Seconds from last_hardened_time to the server's clock at the poll.</param>
/// <param name="CommitBehindMs">
/// How far this copy is behind the primary: the primary database's last_commit_time minus this copy's as the primary
/// sees it, milliseconds (Microsoft: "approximately the recovery point objective"); null on the primary's own row, where
/// the primary's row is not visible (on a secondary), and in recordings made before it was read.
/// </param>
public readonly record struct ReplicaRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db"), JsonRequired] string DatabaseName,
    [property: JsonPropertyName("ag"), JsonRequired] string AvailabilityGroup,
    [property: JsonPropertyName("replica"), JsonRequired] string Replica,
    [property: JsonPropertyName("role"), JsonRequired] string Role,
    [property: JsonPropertyName("availability_mode"), JsonRequired] string AvailabilityMode,
    [property: JsonPropertyName("synchronization_state")] string? SynchronizationState,
    [property: JsonPropertyName("log_send_queue_kb")] long? LogSendQueueKb,
    [property: JsonPropertyName("log_send_rate_kb_per_s")] long? LogSendRateKbPerSecond,
    [property: JsonPropertyName("redo_queue_kb")] long? RedoQueueKb,
    [property: JsonPropertyName("redo_rate_kb_per_s")] long? RedoRateKbPerSecond,
    [property: JsonPropertyName("secondary_lag_s")] long? SecondaryLagSeconds,
    [property: JsonPropertyName("last_hardened_age_s")] long? LastHardenedAgeSeconds,
    [property: JsonPropertyName("commit_behind_ms")] long? CommitBehindMs = null);

/// <summary>
/// Availability-group replicas (<c>sys.dm_hadr_database_replica_states</c>): the send and redo queues, their rates, the
/// secondary's lag and the age of its last harden, per database and replica: the remote half of a synchronous commit.
/// An instance without availability groups answers no rows: no series, no error, no log line. SQL Server 2014 (major
/// version 12) has no secondary_lag_seconds and gets the statement without it; Azure SQL Database has no groups.
/// </summary>
public sealed class HadrReplicasSignal : Signal<ReplicaRow>
{
    /// <summary>A role or commit mode the login cannot see (a secondary knows only its own replica's role; the catalog hides the mode).</summary>
    public const string UnknownRole = "UNKNOWN";

    /// <summary>
    /// Availability-group databases on each replica (SQL Server 2016 and later): <c>sys.dm_hadr_database_replica_states</c>
    /// (on a primary one row for its own database and one for each secondary's copy; on a secondary its own copies) with
    /// the group's name (<c>sys.availability_groups</c>), the replica's server name and commit mode
    /// (<c>sys.availability_replicas</c>) and its role (<c>sys.dm_hadr_availability_replica_states</c>: a secondary knows
    /// only its own replica's role). Every join is LEFT: the two catalog views show only what the login has some
    /// permission on (metadata visibility), so a least-privilege login may see the DMV's rows and no group; the replica's
    /// name then comes from <c>sys.dm_hadr_availability_replica_cluster_states</c> (a DMV, VIEW SERVER STATE), the group is
    /// named by its id, and <c>CatalogVisible</c> = 0 tells the poll to say so once instead of reading "no group". Queues in
    /// KB, rates in KB/s, secondary_lag_seconds in seconds (Microsoft docs of the views; docs/sqlserver.md). The harden's
    /// age is taken on the server's clock (last_hardened_time is server-local datetime, a belief docs/sqlserver.md names).
    /// No AG: no rows, no error. The time a copy is behind is the primary database's last_commit_time (the row with
    /// is_primary_replica = 1 of the same group_database_id) minus the copy's: "approximately the recovery point objective"
    /// (Microsoft's page of the view; is_primary_replica exists from SQL Server 2014). Needs VIEW SERVER STATE (2022+: VIEW
    /// SERVER PERFORMANCE STATE).
    /// </summary>
    public static readonly SignalStatement Statement = new("hadr_replicas", """
        SELECT CAST(drs.database_id AS int) AS DatabaseId, DB_NAME(drs.database_id) AS DatabaseName,
               ISNULL(ag.name, CAST(drs.group_id AS nvarchar(36))) AS AvailabilityGroup,
               ISNULL(ar.replica_server_name, rcs.replica_server_name) AS Replica, ars.role_desc AS Role,
               ar.availability_mode_desc AS AvailabilityMode, drs.synchronization_state_desc AS SynchronizationState,
               CAST(CASE WHEN ag.group_id IS NULL OR ar.replica_id IS NULL THEN 0 ELSE 1 END AS bit) AS CatalogVisible,
               drs.log_send_queue_size AS LogSendQueueKb, drs.log_send_rate AS LogSendRateKbPerSecond,
               drs.redo_queue_size AS RedoQueueKb, drs.redo_rate AS RedoRateKbPerSecond,
               drs.secondary_lag_seconds AS SecondaryLagSeconds,
               CAST(DATEDIFF(SECOND, drs.last_hardened_time, SYSDATETIME()) AS bigint) AS LastHardenedAgeSeconds,
               CASE WHEN drs.is_primary_replica = 1 THEN NULL
                    ELSE DATEDIFF_BIG(MILLISECOND, drs.last_commit_time,
                         MAX(CASE WHEN drs.is_primary_replica = 1 THEN drs.last_commit_time END) OVER (PARTITION BY drs.group_database_id)) END AS CommitBehindMs
        FROM sys.dm_hadr_database_replica_states AS drs
        LEFT JOIN sys.availability_replicas AS ar ON ar.replica_id = drs.replica_id
        LEFT JOIN sys.availability_groups AS ag ON ag.group_id = drs.group_id
        LEFT JOIN sys.dm_hadr_availability_replica_cluster_states AS rcs ON rcs.replica_id = drs.replica_id
        LEFT JOIN sys.dm_hadr_availability_replica_states AS ars ON ars.replica_id = drs.replica_id
        """, "sys.dm_hadr_database_replica_states");

    /// <summary>
    /// <see cref="Statement"/> for SQL Server 2014, whose view has no secondary_lag_seconds (added in 2016): the column reads
    /// NULL, which exports no value. DATEDIFF_BIG came with 2016 too: the time behind is taken in whole seconds there
    /// (DATEDIFF in milliseconds overflows past 24 days, which fails the whole statement).
    /// </summary>
    public static readonly SignalStatement Statement2014 = new("hadr_replicas", """
        SELECT CAST(drs.database_id AS int) AS DatabaseId, DB_NAME(drs.database_id) AS DatabaseName,
               ISNULL(ag.name, CAST(drs.group_id AS nvarchar(36))) AS AvailabilityGroup,
               ISNULL(ar.replica_server_name, rcs.replica_server_name) AS Replica, ars.role_desc AS Role,
               ar.availability_mode_desc AS AvailabilityMode, drs.synchronization_state_desc AS SynchronizationState,
               CAST(CASE WHEN ag.group_id IS NULL OR ar.replica_id IS NULL THEN 0 ELSE 1 END AS bit) AS CatalogVisible,
               drs.log_send_queue_size AS LogSendQueueKb, drs.log_send_rate AS LogSendRateKbPerSecond,
               drs.redo_queue_size AS RedoQueueKb, drs.redo_rate AS RedoRateKbPerSecond,
               CAST(NULL AS bigint) AS SecondaryLagSeconds,
               CAST(DATEDIFF(SECOND, drs.last_hardened_time, SYSDATETIME()) AS bigint) AS LastHardenedAgeSeconds,
               CASE WHEN drs.is_primary_replica = 1 THEN NULL
                    ELSE CAST(DATEDIFF(SECOND, drs.last_commit_time,
                         MAX(CASE WHEN drs.is_primary_replica = 1 THEN drs.last_commit_time END) OVER (PARTITION BY drs.group_database_id)) AS bigint) * 1000 END AS CommitBehindMs
        FROM sys.dm_hadr_database_replica_states AS drs
        LEFT JOIN sys.availability_replicas AS ar ON ar.replica_id = drs.replica_id
        LEFT JOIN sys.availability_groups AS ag ON ag.group_id = drs.group_id
        LEFT JOIN sys.dm_hadr_availability_replica_cluster_states AS rcs ON rcs.replica_id = drs.replica_id
        LEFT JOIN sys.dm_hadr_availability_replica_states AS ars ON ars.replica_id = drs.replica_id
        """, "sys.dm_hadr_database_replica_states");

    private static readonly string[] InstDbReplica = [Instance, Database, AvailabilityGroup, MetricAttributes.Replica, ReplicaRole, AvailabilityMode];

    /// <summary>The gauges, each with the figure of a row it exports.</summary>
    private static readonly (MetricDefinition Family, Func<ReplicaSeries, long?> Value, UnitScale Scale)[] Gauges =
    [
        (Gauge("sqlserver.replica.log_send_queue.size", "By", ReplicaColumn.LogSendQueueSize, UnitScale.KilobytesToBytes,
            "Log of the primary database not yet sent to this replica (sys.dm_hadr_database_replica_states log_send_queue_size, KB on the server).",
            "log of the primary database not yet sent to this secondary: `log_send_queue_size` (KB on the server, exported in bytes). A growing queue on a synchronous secondary means the network or the secondary cannot take the log as fast as it is written",
            "`max by (sqlserver_instance_name, sqlserver_database_name, sqlserver_replica_name) (sqlserver_replica_log_send_queue_size_bytes)`"), s => s.Values[(int)ReplicaColumn.LogSendQueueSize], UnitScale.KilobytesToBytes),
        (Gauge("sqlserver.replica.log_send.rate", "By/s", ReplicaColumn.LogSendRate, UnitScale.KilobytesToBytes,
            "Average rate at which the primary sent log to this replica in its last active period (log_send_rate, KB/s on the server).",
            "average rate the primary sent log to this secondary in its last active period: `log_send_rate` (KB/s on the server, exported in bytes/s); the server's own average, not a rate taken here",
            "seconds to drain the send queue: `sqlserver_replica_log_send_queue_size_bytes / sqlserver_replica_log_send_rate_bytes_per_second`"), s => s.Values[(int)ReplicaColumn.LogSendRate], UnitScale.KilobytesToBytes),
        (Gauge("sqlserver.replica.redo_queue.size", "By", ReplicaColumn.RedoQueueSize, UnitScale.KilobytesToBytes,
            "Log hardened on the secondary and not yet redone (redo_queue_size, KB on the server).",
            "log hardened on the secondary and not yet redone: `redo_queue_size` (KB on the server, exported in bytes). It does not delay commits (the harden does), but it is the failover's recovery time and readable secondaries' staleness",
            "`sqlserver_replica_redo_queue_size_bytes / sqlserver_replica_redo_rate_bytes_per_second`"), s => s.Values[(int)ReplicaColumn.RedoQueueSize], UnitScale.KilobytesToBytes),
        (Gauge("sqlserver.replica.redo.rate", "By/s", ReplicaColumn.RedoRate, UnitScale.KilobytesToBytes,
            "Average rate at which the secondary redoes log (redo_rate, KB/s on the server).",
            "average rate the secondary redoes log: `redo_rate` (KB/s on the server, exported in bytes/s)",
            "`sqlserver_replica_redo_rate_bytes_per_second`"), s => s.Values[(int)ReplicaColumn.RedoRate], UnitScale.KilobytesToBytes),
        (Gauge("sqlserver.replica.secondary.lag", "s", ReplicaColumn.SecondaryLag, UnitScale.None,
            "How far the secondary is behind the primary (secondary_lag_seconds; SQL Server 2016 and later, no series before).",
            "how far the secondary is behind the primary, in seconds: `secondary_lag_seconds`, read on SQL Server 2016 and later (the column does not exist on 2014: no series there, never a 0); NULL rows (the primary's own database) give no value",
            "`max by (sqlserver_instance_name, sqlserver_database_name, sqlserver_replica_name) (sqlserver_replica_secondary_lag_seconds)`"), s => s.Values[(int)ReplicaColumn.SecondaryLag], UnitScale.None),
        (Gauge("sqlserver.replica.last_hardened.age", "s", ReplicaColumn.LastHardenedAge, UnitScale.None,
            "Seconds since last_hardened_time, on the server's clock at the poll: how old the newest log this replica has hardened is.",
            "seconds from `last_hardened_time` to the server's clock at the poll (`DATEDIFF(SECOND, last_hardened_time, SYSDATETIME())`, both server-local): how old the newest log block this replica is known to have hardened is. On an idle database it grows with the idleness; read it with the send queue",
            "`sqlserver_replica_last_hardened_age_seconds > 30 and sqlserver_replica_log_send_queue_size_bytes > 0`"), s => s.Values[(int)ReplicaColumn.LastHardenedAge], UnitScale.None),
    ];

    /// <summary>How far behind the primary each copy is: last_commit_time of the primary database minus the copy's.</summary>
    internal static readonly MetricDefinition CommitBehind = Gauge("sqlserver.replica.commit.behind", "s", ReplicaColumn.CommitBehind, UnitScale.MillisecondsToSeconds,
        "How far this copy of the database is behind the primary: the primary's last_commit_time minus this copy's (sys.dm_hadr_database_replica_states, on the primary).",
        "how far this secondary's copy is behind the primary, in seconds: the primary database's `last_commit_time` minus this copy's, as the primary sees them (Microsoft: \"approximately the recovery point objective\", once redo has caught up and reported back). Read on the primary (a secondary does not see the primary's row: no value there); 0 on an idle database that is caught up, unlike the harden age. Milliseconds on SQL Server 2016 and later, whole seconds on 2014",
        "`sqlserver_replica_commit_behind_seconds > on (sqlserver_instance_name, sqlserver_database_name, sqlserver_availability_group_name, sqlserver_replica_name) sqlserver_replica_behind_threshold_seconds` (alerts SqlServerSyncReplicaBehind, SqlServerAsyncReplicaBehind)");

    /// <summary>Seconds to send what is queued at the current send rate.</summary>
    internal static readonly MetricDefinition SendDrain = Gauge("sqlserver.replica.log_send_queue.drain_time", "s", ReplicaColumn.LogSendQueueSize, UnitScale.None,
        "Seconds to send the log send queue at the current send rate (log_send_queue_size / log_send_rate); no value while the rate is 0.",
        "seconds to send what is queued for this secondary at the primary's current send rate: `log_send_queue_size / log_send_rate` (KB over KB/s). 0 with an empty queue; no value when the rate is 0 or unknown (nothing sent in the last active period: the time is not known, watch the queue and the time behind)",
        "`sqlserver_replica_log_send_queue_drain_time_seconds > 60`");

    /// <summary>Seconds to redo what is queued at the current redo rate.</summary>
    internal static readonly MetricDefinition RedoDrain = Gauge("sqlserver.replica.redo_queue.drain_time", "s", ReplicaColumn.RedoQueueSize, UnitScale.None,
        "Seconds to redo the redo queue at the current redo rate (redo_queue_size / redo_rate); no value while the rate is 0.",
        "seconds for this secondary to redo what it has hardened and not yet redone, at its current redo rate: `redo_queue_size / redo_rate` (KB over KB/s): the failover's recovery time and a readable secondary's staleness. 0 with an empty queue; no value when the rate is 0 or unknown",
        "`sqlserver_replica_redo_queue_drain_time_seconds`");

    /// <summary>The threshold of the time behind, from the monitor's configuration (Replicas).</summary>
    internal static readonly MetricDefinition BehindThreshold = Gauge("sqlserver.replica.behind.threshold", "s", ReplicaColumn.CommitBehind, UnitScale.None,
        "How far behind this secondary may fall before its alert fires: Replicas:SynchronousBehind or Replicas:AsynchronousBehind by its commit mode, or its own Replicas:Behind entry.",
        "the threshold the shipped rules hold `sqlserver.replica.commit.behind` against, from the monitor's configuration: `Replicas:SynchronousBehind` (default 10 s) or `Replicas:AsynchronousBehind` (default 60 s) by the copy's commit mode, or the replica's own `Replicas:Behind` entry (an asynchronous replica over a slow link that always lags). One per series that has a time behind",
        "`sqlserver_replica_behind_threshold_seconds`");

    internal HadrReplicasSignal()
        : base("hadr_replicas")
    {
        Recording = new SignalRecording<ReplicaRow>(this, "hadr_replica", "hadr_replicas", ReplicaJson.Default.ReplicaRow,
            r => r.DatabaseName is null ? "invalid field 'db': expected a string"
                : r.AvailabilityGroup is null ? "invalid field 'ag': expected a string"
                : r.Replica is null ? "invalid field 'replica': expected a string"
                : r.Role is null ? "invalid field 'role': expected a string"
                : r.AvailabilityMode is null ? "invalid field 'availability_mode': expected a string"
                : !DatabaseIds.IsValid(r.DatabaseId) ? $"invalid field 'db_id': {r.DatabaseId} is not a database id (0 to {DatabaseIds.Max})"
                : null);
        Families = [.. Gauges.Select(g => g.Family), CommitBehind, SendDrain, RedoDrain, BehindThreshold];
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; }

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) =>
        server.AzureSqlDatabase ? [] : [HasSecondaryLag(server) ? Statement : Statement2014];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) =>
        "sys.dm_hadr_database_replica_states with sys.availability_replicas, sys.availability_groups and sys.dm_hadr_availability_replica_states (availability replicas)";

    /// <inheritdoc />
    public override SignalPoller? NewPoller(PollContext context, ServerProfile server) => server.AzureSqlDatabase ? null : new Poller(this, context);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>Each database replica over the recording: its role, mode and last state, and the worst queues and lag polled.</summary>
    private sealed class View(string signal) : SignalView<ReplicaRow>
    {
        private readonly Dictionary<(string Instance, string Database, string Group, string Replica), (ReplicaRow Last, long? SendQueueKb, long? RedoQueueKb, long? LagSeconds, long Polls, long NotSynchronized)> _replicas = [];

        protected override void Observe(string instance, DateTime timestampUtc, in ReplicaRow row)
        {
            var key = (instance, row.DatabaseName, row.AvailabilityGroup, row.Replica);
            var r = _replicas.GetValueOrDefault(key);
            r.Last = row;
            r.SendQueueKb = Max(r.SendQueueKb, row.LogSendQueueKb);
            r.RedoQueueKb = Max(r.RedoQueueKb, row.RedoQueueKb);
            r.LagSeconds = Max(r.LagSeconds, row.SecondaryLagSeconds);
            r.Polls++;
            var synchronous = row.AvailabilityMode.StartsWith("SYNCHRONOUS", StringComparison.OrdinalIgnoreCase);
            r.NotSynchronized += synchronous && row.SynchronizationState is { } state && !string.Equals(state, "SYNCHRONIZED", StringComparison.OrdinalIgnoreCase) ? 1 : 0;
            _replicas[key] = r;
        }

        private static long? Max(long? a, long? b) => a is null ? b : b is null ? a : Math.Max(a.Value, b.Value);

        public override SignalTable? Table() => _replicas.Count == 0 ? null : new SignalTable(
            signal, "Availability replicas (sys.dm_hadr_database_replica_states)",
            [new("instance"), new("database"), new("group"), new("replica"), new("role"), new("mode"), new("last state"),
                new("polls not synchronized"), new("largest send queue", "KB"), new("largest redo queue", "KB"), new("largest lag", "s")],
            [.. _replicas.OrderBy(r => r.Key.Instance, StringComparer.Ordinal).ThenBy(r => r.Key.Database, StringComparer.Ordinal)
                .ThenBy(r => r.Key.Group, StringComparer.Ordinal).ThenBy(r => r.Key.Replica, StringComparer.Ordinal).Select(r => (IReadOnlyList<object?>)[
                r.Key.Instance, r.Key.Database, r.Key.Group, r.Key.Replica, r.Value.Last.Role, r.Value.Last.AvailabilityMode, r.Value.Last.SynchronizationState,
                r.Value.NotSynchronized, r.Value.SendQueueKb, r.Value.RedoQueueKb, r.Value.LagSeconds])],
            ["A synchronous replica that is not SYNCHRONIZED does not hold commits back but has no failover without data loss; the send queue is log not yet sent, the redo queue log hardened but not yet redone (KB as the server reports them)."]);
    }

    /// <summary>
    /// secondary_lag_seconds exists from SQL Server 2016 (13.x) on (Microsoft docs of the view). An unknown version takes the
    /// newer statement: a server older than 2014 is not supported at all.
    /// </summary>
    public static bool HasSecondaryLag(ServerProfile server) => server.MajorVersion is 0 or >= 13;

    private static MetricDefinition Gauge(string name, string unit, ReplicaColumn column, UnitScale scale, string description, string meaning, string promQL) => new()
    {
        Name = name, Unit = unit, Kind = MetricKind.Gauge, IsInteger = false, Description = description, Meaning = meaning, PromQL = promQL,
        Attributes = InstDbReplica, Section = MetricSection.Replicas,
    };

    /// <summary>
    /// Seconds to drain <paramref name="queueKb"/> at <paramref name="rateKbPerSecond"/>: 0 for an empty queue, null when
    /// either is unknown or the rate is 0 (the drain time is then not known, not infinite).
    /// </summary>
    public static double? Drain(long? queueKb, long? rateKbPerSecond) =>
        queueKb is not { } q ? null : q == 0 ? 0 : rateKbPerSecond is > 0 and var r ? (double)q / r : null;

    // A clock step between two reads can make an age negative; a queue or rate never is.
    private static long? NonNegative(long? value) => value is { } v ? Math.Max(0, v) : null;

    private sealed class Poller(HadrReplicasSignal signal, PollContext context) : SignalPoller(context)
    {
        private bool _hiddenLogged;

        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var statement = HasSecondaryLag(ServerProfile.Of(false, connection.ServerVersion)) ? Statement : Statement2014;
            // DB_NAME is NULL for a database dropped since; the group and replica names are the series' identity.
            var rows = await SqlRows.ReadAsync(connection, Context, statement, c => (Row: new ReplicaRow(
                c.Int32("DatabaseId"), c.String("DatabaseName"), c.String("AvailabilityGroup"), c.String("Replica"),
                c.StringOrNull("Role") ?? UnknownRole, c.StringOrNull("AvailabilityMode") ?? UnknownRole, c.StringOrNull("SynchronizationState"),
                NonNegative(c.Int64OrNull("LogSendQueueKb")), NonNegative(c.Int64OrNull("LogSendRateKbPerSecond")),
                NonNegative(c.Int64OrNull("RedoQueueKb")), NonNegative(c.Int64OrNull("RedoRateKbPerSecond")),
                NonNegative(c.Int64OrNull("SecondaryLagSeconds")), NonNegative(c.Int64OrNull("LastHardenedAgeSeconds")), NonNegative(c.Int64OrNull("CommitBehindMs"))),
                Visible: c.Boolean("CatalogVisible")), cancellationToken).ConfigureAwait(false);
            var batch = new List<ReplicaRow>();
            foreach (var (row, visible) in rows)
            {
                if (!Context.Filter.Watches(row.DatabaseName))
                {
                    continue;
                }

                if (!visible && !_hiddenLogged)
                {
                    // Not an error: the figures are real, only the group's name and the commit mode are hidden.
                    _hiddenLogged = true;
                    SignalLog.AvailabilityGroupsHidden(Context.Logger, Context.Instance);
                }

                batch.Add(row);
            }

            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. batch], endsPoll: true));
        }
    }

    /// <summary>
    /// Each database on each replica as the last poll saw it, by database, group, replica, role and mode: a failover that
    /// changes a role starts new series instead of relabelling old ones. Those the poll no longer lists are retired.
    /// </summary>
    internal sealed class State(InstanceState instance) : PolledState<ReplicaRow>
    {
        private readonly Dictionary<(string Database, string Group, string Replica, string Role, string Mode), ReplicaSeries> _series = [];

        /// <summary>Every database and replica the last poll listed, with its key.</summary>
        public IEnumerable<KeyValuePair<(string Database, string Group, string Replica, string Role, string Mode), ReplicaSeries>> Series => _series;

        protected override void ApplyRow(SignalBatch<ReplicaRow> batch, in ReplicaRow row, SignalOutcome outcome)
        {
            instance.LearnName(row.DatabaseId, row.DatabaseName);
            var key = (row.DatabaseName, row.AvailabilityGroup, row.Replica, row.Role, row.AvailabilityMode);
            if (!_series.TryGetValue(key, out var s))
            {
                s = new ReplicaSeries(instance.Name, row.DatabaseName, row.AvailabilityGroup, row.Replica, row.Role, row.AvailabilityMode);
                _series[key] = s;
            }

            s.Stamp = Stamp;
            s.DatabaseId = row.DatabaseId;
            s.SynchronizationState = row.SynchronizationState;
            s.Values[(int)ReplicaColumn.LogSendQueueSize] = row.LogSendQueueKb;
            s.Values[(int)ReplicaColumn.LogSendRate] = row.LogSendRateKbPerSecond;
            s.Values[(int)ReplicaColumn.RedoQueueSize] = row.RedoQueueKb;
            s.Values[(int)ReplicaColumn.RedoRate] = row.RedoRateKbPerSecond;
            s.Values[(int)ReplicaColumn.SecondaryLag] = row.SecondaryLagSeconds;
            s.Values[(int)ReplicaColumn.LastHardenedAge] = row.LastHardenedAgeSeconds;
            s.Values[(int)ReplicaColumn.CommitBehind] = row.CommitBehindMs;
        }

        protected override void EndPoll(int keep, SignalBatch<ReplicaRow> batch, SignalOutcome outcome) => RemoveStale(_series, keep);

        /// <summary>
        /// One value per series whose column the server answered (NULL gives no value, never 0); the drain times where the
        /// rate is above 0; the threshold beside each time behind.
        /// </summary>
        public override void Read(MeasurementBuffers into)
        {
            foreach (var (family, value, scale) in Gauges)
            {
                foreach (var s in _series.Values)
                {
                    if (value(s) is { } v)
                    {
                        into.Add(family, scale.Apply(v), s.Tags);
                    }
                }
            }

            foreach (var s in _series.Values)
            {
                if (s.Values[(int)ReplicaColumn.CommitBehind] is { } behindMs)
                {
                    into.Add(CommitBehind, behindMs / 1000.0, s.Tags);
                    into.Add(BehindThreshold, instance.ReplicaThresholds.For(s.Replica, s.Mode).TotalSeconds, s.Tags);
                }

                if (Drain(s.Values[(int)ReplicaColumn.LogSendQueueSize], s.Values[(int)ReplicaColumn.LogSendRate]) is { } send)
                {
                    into.Add(SendDrain, send, s.Tags);
                }

                if (Drain(s.Values[(int)ReplicaColumn.RedoQueueSize], s.Values[(int)ReplicaColumn.RedoRate]) is { } redo)
                {
                    into.Add(RedoDrain, redo, s.Tags);
                }
            }
        }
    }
}

/// <summary>The hadr_replica line's contract: a figure the server left NULL is absent, so a replay exports no value for it, as live does.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(ReplicaRow))]
internal sealed partial class ReplicaJson : JsonSerializerContext;

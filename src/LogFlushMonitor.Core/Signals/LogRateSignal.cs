using System.Data.Common;
using System.Globalization;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// One reading of Azure's log-rate governance: on Azure SQL Database the database's cap and service objective with the
/// newest 15-second log write percentage (<see cref="LogRateSignal.DatabaseScope"/>); on Managed Instance the instance's
/// cap and tier (<see cref="LogRateSignal.InstanceScope"/>); on Hyperscale one row per component that sets the log rate
/// now (<see cref="LogRateSignal.HyperscaleScope"/>).
/// </summary>
/// <param name="Scope">database, instance or hyperscale.</param>
/// <param name="DatabaseName">The database (DB_NAME()); null for the instance's row.</param>
/// <param name="Tier">The service tier: DATABASEPROPERTYEX(DB_NAME(), 'Edition') on SQL Database (GeneralPurpose, BusinessCritical, Hyperscale, Basic, Standard, Premium), sys.server_resource_stats.sku on Managed Instance.</param>
/// <param name="ServiceObjective">slo_name (SQL Database), or the instance's sku, hardware generation and vCores.</param>
/// <param name="MaxLogRateBytesPerSecond">primary_max_log_rate (SQL Database), instance_max_log_rate (Managed Instance), current_max_log_rate (Hyperscale), bytes per second.</param>
/// <param name="LogWritePercent">avg_log_write_percent of the newest sys.dm_db_resource_stats row: log writes as a percentage of the cap (SQL Database).</param>
/// <param name="Component">role_desc of the Hyperscale component (Primary when nothing reduces the rate).</param>
/// <param name="CatchupBytes">Log the component must still apply to catch up with the primary, bytes (Hyperscale).</param>
/// <param name="CatchupRateBytesPerSecond">The component's catch-up rate, bytes per second (0 when it reduces nothing).</param>
public readonly record struct LogRateRow(
    [property: JsonPropertyName("scope"), JsonRequired] string Scope,
    [property: JsonPropertyName("db")] string? DatabaseName,
    [property: JsonPropertyName("tier")] string? Tier,
    [property: JsonPropertyName("service_objective")] string? ServiceObjective,
    [property: JsonPropertyName("max_log_rate_bytes_per_s")] long? MaxLogRateBytesPerSecond,
    [property: JsonPropertyName("log_write_percent")] double? LogWritePercent = null,
    [property: JsonPropertyName("component")] string? Component = null,
    [property: JsonPropertyName("catchup_bytes")] long? CatchupBytes = null,
    [property: JsonPropertyName("catchup_rate_bytes_per_s")] long? CatchupRateBytesPerSecond = null);

/// <summary>
/// Azure's log-rate cap, read live (Microsoft's pages disagree on the caps: MicrosoftDocs/azure-docs #29675, #78008; the
/// DMV is what governs): on Azure SQL Database <c>sys.dm_user_db_resource_governance</c> (<c>primary_max_log_rate</c>,
/// <c>slo_name</c>) with the newest <c>sys.dm_db_resource_stats</c> row (<c>avg_log_write_percent</c>, 15-second rows),
/// and on Hyperscale <c>sys.dm_hs_database_log_rate</c>, which names the component holding the rate back; on Managed
/// Instance <c>sys.dm_instance_resource_governance</c> (<c>instance_max_log_rate</c>) with the tier from
/// <c>sys.server_resource_stats</c>. SQL Server has no log-rate governance: nothing is sent there. The engine edition is
/// read once per connection (SERVERPROPERTY('EngineEdition'): 5 SQL Database, 8 Managed Instance). Needs VIEW DATABASE
/// STATE (SQL Database; VIEW DATABASE PERFORMANCE STATE for the Hyperscale function) or VIEW SERVER STATE.
/// </summary>
public sealed class LogRateSignal : Signal<LogRateRow>
{
    /// <summary>A database's cap on Azure SQL Database.</summary>
    public const string DatabaseScope = "database";

    /// <summary>The instance's cap on Managed Instance.</summary>
    public const string InstanceScope = "instance";

    /// <summary>A Hyperscale component that sets the log rate now.</summary>
    public const string HyperscaleScope = "hyperscale";

    /// <summary>
    /// Azure SQL Database: this database's cap and service objective, the tier, and the newest 15-second log write
    /// percentage (Microsoft's pages of the two views; the percentage is "of the service tier limit"). One row for the
    /// current database (in an elastic pool the view lists the pool's databases; DB_ID() keeps this one).
    /// </summary>
    public static readonly SignalStatement DatabaseStatement = new("log_rate_governance", """
        SELECT DB_NAME() AS DatabaseName, CAST(DATABASEPROPERTYEX(DB_NAME(), 'Edition') AS nvarchar(128)) AS Tier,
               g.slo_name AS ServiceObjective, g.primary_max_log_rate AS MaxLogRateBytesPerSecond,
               CAST(s.avg_log_write_percent AS float) AS LogWritePercent
        FROM sys.dm_user_db_resource_governance AS g
        OUTER APPLY (SELECT TOP (1) r.avg_log_write_percent FROM sys.dm_db_resource_stats AS r ORDER BY r.end_time DESC) AS s
        WHERE g.database_id = DB_ID()
        """, "sys.dm_user_db_resource_governance");

    /// <summary>
    /// Hyperscale: a row per component that reduces the log rate, or one for the primary with the database's cap when none
    /// does. Microsoft's page of the function names its columns two ways (current_max_log_rate, catchup_rate,
    /// catchup_bytes in the table; current_max_log_rate_bps, catchup_rate_bps, catchup_distance_bytes in its examples):
    /// all columns are read and either name is taken (docs/sqlserver.md).
    /// </summary>
    public static readonly SignalStatement HyperscaleStatement = new("hyperscale_log_rate", """
        SELECT * FROM sys.dm_hs_database_log_rate(DB_ID())
        """, "sys.dm_hs_database_log_rate");

    /// <summary>
    /// Managed Instance: the instance's cap (instance_max_log_rate, bytes per second; the column influxdata/telegraf's
    /// Managed Instance queries read) and its tier, hardware and vCores from the newest sys.server_resource_stats row.
    /// </summary>
    public static readonly SignalStatement InstanceStatement = new("instance_log_rate_governance", """
        SELECT s.sku AS Tier,
               CONCAT(s.sku, N' ', s.hardware_generation, N' ', s.virtual_core_count, N' vCores') AS ServiceObjective,
               g.instance_max_log_rate AS MaxLogRateBytesPerSecond
        FROM sys.dm_instance_resource_governance AS g
        OUTER APPLY (SELECT TOP (1) r.sku, r.hardware_generation, r.virtual_core_count FROM master.sys.server_resource_stats AS r ORDER BY r.end_time DESC) AS s
        """, "sys.dm_instance_resource_governance");

    private static readonly string[] InstDbTier = [Instance, Database, ServiceTier, ServiceObjective];
    private static readonly string[] InstTier = [Instance, ServiceTier, ServiceObjective];
    private static readonly string[] InstDbComponent = [Instance, Database, LogRateComponent];

    internal static readonly MetricDefinition Limit = new()
    {
        Name = "sqlserver.log.rate.limit", Unit = "By/s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDbTier, Section = MetricSection.LogRate,
        Description = "The database's log-rate cap on Azure SQL Database (sys.dm_user_db_resource_governance primary_max_log_rate), with its service tier and objective.",
        Meaning = "the log rate Azure SQL Database lets the database write, read live from `sys.dm_user_db_resource_governance.primary_max_log_rate` (bytes/s) with the tier (`DATABASEPROPERTYEX(DB_NAME(), 'Edition')`) and `slo_name` as attributes. Microsoft's pages disagree on the caps: this is the one that governs. On Hyperscale the primary's cap (the function's row for the primary)",
        PromQL = "in MB/s: `sqlserver_log_rate_limit_bytes_per_second / 1048576`",
    };

    internal static readonly MetricDefinition Used = new()
    {
        Name = "sqlserver.log.rate.used", Unit = "By/s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = [Instance, Database], Section = MetricSection.LogRate,
        Description = "The database's log write rate on Azure SQL Database: the newest 15-second avg_log_write_percent (sys.dm_db_resource_stats) of the cap.",
        Meaning = "log writes of the newest 15-second row of `sys.dm_db_resource_stats` (`avg_log_write_percent`, a percentage of the tier's cap) times the cap: bytes/s. At the cap the database waits on LOG_RATE_GOVERNOR (the commit budget's `log_rate_governor` part)",
        PromQL = "share of the cap: `sqlserver_log_rate_used_bytes_per_second / on (sqlserver_instance_name, sqlserver_database_name) group_left sqlserver_log_rate_limit_bytes_per_second` (alert SqlServerLogRateAtCap)",
    };

    internal static readonly MetricDefinition InstanceLimit = new()
    {
        Name = "sqlserver.instance.log.rate.limit", Unit = "By/s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstTier, Section = MetricSection.LogRate,
        Description = "The instance's log-rate cap on Azure SQL Managed Instance (sys.dm_instance_resource_governance instance_max_log_rate), with its tier.",
        Meaning = "the log rate Managed Instance lets the whole instance write (every database, tempdb included): `sys.dm_instance_resource_governance.instance_max_log_rate` (bytes/s), with the tier (`sys.server_resource_stats.sku`) and the sku, hardware generation and vCores as the objective",
        PromQL = "share of the cap: `sqlserver_instance_log_rate_used_bytes_per_second / on (sqlserver_instance_name) group_left sqlserver_instance_log_rate_limit_bytes_per_second`",
    };

    internal static readonly MetricDefinition InstanceUsed = new()
    {
        Name = "sqlserver.instance.log.rate.used", Unit = "By/s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = [Instance], Section = MetricSection.LogRate,
        Description = "The instance's log write rate on Managed Instance: Log Bytes Flushed/sec of _Total over the last poll interval.",
        Meaning = "bytes of log the whole instance flushed per second over the last poll interval (`Log Bytes Flushed/sec` of `_Total`, which includes tempdb and the system databases, as the instance's cap does); Managed Instance only (its resource stats have no log write percentage)",
        PromQL = "`sqlserver_instance_log_rate_used_bytes_per_second`",
    };

    internal static readonly MetricDefinition CurrentLimit = new()
    {
        Name = "sqlserver.log.rate.current_limit", Unit = "By/s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDbComponent, Section = MetricSection.LogRate,
        Description = "Hyperscale: the log rate the primary may write now, per component that sets it (sys.dm_hs_database_log_rate current_max_log_rate, role_desc).",
        Meaning = "Hyperscale only: the log rate the primary may write now (`sys.dm_hs_database_log_rate.current_max_log_rate`, bytes/s) with the component that sets it (`role_desc`: `Primary` when nothing reduces it, else the page server (`Storage`), secondary replica, log service (`LocalDestage`, `Destage`), geo-replica ... that is behind)",
        PromQL = "who holds the rate back: `sqlserver_log_rate_current_limit_bytes_per_second{sqlserver_log_rate_component!=\"Primary\"}`",
    };

    internal static readonly MetricDefinition Catchup = new()
    {
        Name = "sqlserver.log.rate.catchup", Unit = "By", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDbComponent, Section = MetricSection.LogRate,
        Description = "Hyperscale: log a component must still apply to catch up with the primary (sys.dm_hs_database_log_rate catchup bytes).",
        Meaning = "Hyperscale only: log the component must still apply to catch up with the primary, bytes (0 when caught up)",
        PromQL = "`sqlserver_log_rate_catchup_bytes > 0`",
    };

    internal LogRateSignal()
        : base("log_rate")
    {
        Recording = new SignalRecording<LogRateRow>(this, "log_rate", "log_rate", LogRateJson.Default.LogRateRow, Validate);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Limit, Used, InstanceLimit, InstanceUsed, CurrentLimit, Catchup];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) =>
        server.AzureSqlDatabase || server.EngineEdition == CountersSignal.AzureSqlDatabase ? [CountersSignal.IdentityStatement, DatabaseStatement, HyperscaleStatement]
        : server.EngineEdition == CountersSignal.AzureManagedInstance ? [CountersSignal.IdentityStatement, InstanceStatement]
        : server.EngineEdition == 0 ? [CountersSignal.IdentityStatement]
        : [];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) =>
        server.EngineEdition == CountersSignal.AzureManagedInstance
            ? "sys.dm_instance_resource_governance and sys.server_resource_stats (the instance's log-rate cap)"
            : "sys.dm_user_db_resource_governance, sys.dm_db_resource_stats and on Hyperscale sys.dm_hs_database_log_rate (the log-rate cap)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, server);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    private static string? Validate(LogRateRow r) =>
        r.Scope is not (DatabaseScope or InstanceScope or HyperscaleScope) ? $"invalid field 'scope': '{r.Scope}' is not database, instance or hyperscale"
        : r.Scope != InstanceScope && r.DatabaseName is null ? "invalid field 'db': a database or hyperscale row names its database"
        : r.MaxLogRateBytesPerSecond is < 0 ? $"invalid field 'max_log_rate_bytes_per_s': {r.MaxLogRateBytesPerSecond} is negative"
        : r.LogWritePercent is < 0 or > 1000 || r.LogWritePercent is { } p && !double.IsFinite(p) ? $"invalid field 'log_write_percent': {r.LogWritePercent} is not a percentage"
        : null;

    /// <summary>The cap in MB/s as a sentence shows it ("18.8 MB/s"; MB of 1,048,576 bytes, as Microsoft's pages count them).</summary>
    public static string MegabytesPerSecond(double bytesPerSecond) => string.Create(CultureInfo.InvariantCulture, $"{bytesPerSecond / 1048576:0.##} MB/s");

    /// <summary>The rows over a recording: the cap, the share of it used (average, highest, polls at 90 % or more), the components that set Hyperscale's rate.</summary>
    private sealed class View(string signal) : SignalView<LogRateRow>
    {
        private readonly Dictionary<(string Instance, string Scope, string Database, string Component), (LogRateRow Last, double Sum, int Percents, double Max, int AtCap, int Polls)> _rows = [];

        protected override void Observe(string instance, DateTime timestampUtc, in LogRateRow row)
        {
            var key = (instance, row.Scope, row.DatabaseName ?? "", row.Component ?? "");
            var r = _rows.GetValueOrDefault(key);
            r.Last = row;
            r.Polls++;
            if (row.LogWritePercent is { } p)
            {
                r.Sum += p;
                r.Percents++;
                r.Max = Math.Max(r.Max, p);
                r.AtCap += p >= 90 ? 1 : 0;
            }

            _rows[key] = r;
        }

        public override SignalTable? Table() => _rows.Count == 0 ? null : new SignalTable(
            signal, "Log-rate cap (Azure resource governance)",
            [new("instance"), new("scope"), new("database"), new("tier"), new("service objective"), new("cap", "MB/s"), new("log writes, average", "% of cap"),
                new("log writes, highest", "% of cap"), new("polls at 90 % or more"), new("component"), new("catch-up", "B")],
            [.. _rows.OrderBy(r => r.Key.Instance, StringComparer.Ordinal).ThenBy(r => r.Key.Scope, StringComparer.Ordinal)
                .ThenBy(r => r.Key.Database, StringComparer.Ordinal).ThenBy(r => r.Key.Component, StringComparer.Ordinal).Select(r => (IReadOnlyList<object?>)[
                r.Key.Instance, r.Key.Scope, r.Value.Last.DatabaseName, r.Value.Last.Tier, r.Value.Last.ServiceObjective,
                r.Value.Last.MaxLogRateBytesPerSecond is { } cap ? cap / 1048576.0 : null,
                r.Value.Percents > 0 ? r.Value.Sum / r.Value.Percents : null, r.Value.Percents > 0 ? r.Value.Max : null,
                r.Value.Percents > 0 ? (long)r.Value.AtCap : null, r.Value.Last.Component, r.Value.Last.CatchupBytes])],
            ["The cap is the live DMV's (primary_max_log_rate; instance_max_log_rate on Managed Instance; current_max_log_rate per Hyperscale component), the percentage avg_log_write_percent of the newest 15-second sys.dm_db_resource_stats row at each poll. A Hyperscale component other than Primary is holding the log rate back."]);
    }

    /// <summary>Reads the engine edition once, then what that edition governs; nothing on SQL Server.</summary>
    private sealed class Poller(LogRateSignal signal, PollContext context, ServerProfile server) : SignalPoller(context)
    {
        private int? _edition = server.AzureSqlDatabase ? CountersSignal.AzureSqlDatabase : null;

        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            _edition ??= (await SqlRows.ReadAsync(connection, Context, CountersSignal.IdentityStatement, c => c.Int32OrNull("EngineEdition"), cancellationToken).ConfigureAwait(false))
                .FirstOrDefault() ?? 0;
            var rows = new List<LogRateRow>();
            if (_edition == CountersSignal.AzureSqlDatabase)
            {
                rows.AddRange(await SqlRows.ReadAsync(connection, Context, DatabaseStatement, c => new LogRateRow(
                    DatabaseScope, c.String("DatabaseName"), c.StringOrNull("Tier"), c.StringOrNull("ServiceObjective"),
                    NonNegative(c.Int64OrNull("MaxLogRateBytesPerSecond")), c.DoubleOrNull("LogWritePercent")), cancellationToken).ConfigureAwait(false));
                if (rows.Any(r => string.Equals(r.Tier, "Hyperscale", StringComparison.OrdinalIgnoreCase)))
                {
                    var database = rows[0].DatabaseName;
                    rows.AddRange(await SqlRows.ReadAsync(connection, Context, HyperscaleStatement, c => new LogRateRow(
                        HyperscaleScope, database, "Hyperscale", null, NonNegative(Either(c, "current_max_log_rate", "current_max_log_rate_bps")), null,
                        c.StringOrNull("role_desc"), NonNegative(Either(c, "catchup_bytes", "catchup_distance_bytes")), NonNegative(Either(c, "catchup_rate", "catchup_rate_bps"))),
                        cancellationToken).ConfigureAwait(false));
                }
            }
            else if (_edition == CountersSignal.AzureManagedInstance)
            {
                rows.AddRange(await SqlRows.ReadAsync(connection, Context, InstanceStatement, c => new LogRateRow(
                    InstanceScope, null, c.StringOrNull("Tier"), c.StringOrNull("ServiceObjective"), NonNegative(c.Int64OrNull("MaxLogRateBytesPerSecond"))),
                    cancellationToken).ConfigureAwait(false));
            }
            else
            {
                return; // SQL Server governs no log rate: nothing to read
            }

            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. rows.Where(r => r.DatabaseName is null || Context.Filter.Watches(r.DatabaseName))], endsPoll: true));
        }

        /// <summary>The column the page's table names, else the one its examples name; neither is a named answer problem.</summary>
        private static long? Either(RowCells c, string table, string examples) =>
            c.Has(table) ? c.Int64OrNull(table)
            : c.Has(examples) ? c.Int64OrNull(examples)
            : throw new StatementAnswerException($"sys.dm_hs_database_log_rate: the answer has neither {table} nor {examples}");

        private static long? NonNegative(long? value) => value is { } v ? Math.Max(0, v) : null;
    }

    /// <summary>
    /// The last poll's rows, by scope, database and component; those a poll no longer lists are retired. The instance's
    /// used rate is read from the counters' _Total when the metrics are read.
    /// </summary>
    internal sealed class State(InstanceState instance) : PolledState<LogRateRow>
    {
        private readonly Dictionary<(string Scope, string Database, string Component), Series> _series = [];

        /// <summary>The governance of <paramref name="database"/> (its own row on SQL Database, else the instance's), or null.</summary>
        public LogRateSnapshot? Snapshot(string database)
        {
            var own = _series.Values.FirstOrDefault(s => s.Row.Scope == DatabaseScope && s.Row.DatabaseName == database)
                ?? _series.Values.FirstOrDefault(s => s.Row.Scope == InstanceScope);
            if (own is null)
            {
                return null;
            }

            var limiting = _series.Values.Where(s => s.Row.Scope == HyperscaleScope && s.Row.DatabaseName == database && !string.Equals(s.Row.Component, "Primary", StringComparison.OrdinalIgnoreCase))
                .OrderBy(s => s.Row.MaxLogRateBytesPerSecond ?? long.MaxValue).FirstOrDefault();
            var row = own.Row;
            return new LogRateSnapshot(row.Scope, row.Tier, row.ServiceObjective, row.MaxLogRateBytesPerSecond, row.LogWritePercent,
                row.Scope == InstanceScope ? InstanceUsedRate() : UsedRate(row), limiting?.Row.Component, limiting?.Row.MaxLogRateBytesPerSecond);
        }

        protected override void ApplyRow(SignalBatch<LogRateRow> batch, in LogRateRow row, SignalOutcome outcome)
        {
            var key = (row.Scope, row.DatabaseName ?? "", row.Component ?? "");
            if (!_series.TryGetValue(key, out var s) || s.Row.Tier != row.Tier || s.Row.ServiceObjective != row.ServiceObjective)
            {
                // A new tier or objective (a scale operation) starts new series instead of relabelling the old ones.
                s = new Series(instance.ExportName, row);
                _series[key] = s;
            }

            s.Stamp = Stamp;
            s.Row = row;
        }

        protected override void EndPoll(int keep, SignalBatch<LogRateRow> batch, SignalOutcome outcome) => RemoveStale(_series, keep);

        public override void Read(MeasurementBuffers into)
        {
            foreach (var s in _series.Values)
            {
                var row = s.Row;
                switch (row.Scope)
                {
                    case DatabaseScope when row.MaxLogRateBytesPerSecond is { } cap:
                        into.Add(Limit, (double)cap, s.Tags);
                        if (UsedRate(row) is { } used)
                        {
                            into.Add(Used, used, s.UsedTags);
                        }

                        break;
                    case InstanceScope when row.MaxLogRateBytesPerSecond is { } cap:
                        into.Add(InstanceLimit, (double)cap, s.Tags);
                        if (InstanceUsedRate() is { } rate)
                        {
                            into.Add(InstanceUsed, rate, s.UsedTags);
                        }

                        break;
                    case HyperscaleScope:
                        if (row.MaxLogRateBytesPerSecond is { } current)
                        {
                            into.Add(CurrentLimit, (double)current, s.Tags);
                        }

                        if (row.CatchupBytes is { } catchup)
                        {
                            into.Add(Catchup, (double)catchup, s.Tags);
                        }

                        break;
                }
            }
        }

        private static double? UsedRate(LogRateRow row) =>
            row.LogWritePercent is { } p && row.MaxLogRateBytesPerSecond is { } cap ? p / 100 * cap : null;

        /// <summary>The instance's Log Bytes Flushed/sec (_Total) over the last poll interval, or null.</summary>
        private double? InstanceUsedRate() =>
            instance.Find<CountersSignal.State>(SignalRegistry.Counters)?.Find(DatabasesCounters.Object, DatabasesCounters.LogBytesFlushed, DatabasesCounters.TotalInstance)?.Tracker.LastRate;

        private sealed class Series : PolledSeries
        {
            public Series(string instance, LogRateRow row)
            {
                Row = row;
                var db = MetricAttributes.Limit(row.DatabaseName ?? "");
                var tier = MetricAttributes.Limit(row.Tier ?? "unknown");
                var objective = MetricAttributes.Limit(row.ServiceObjective ?? "unknown");
                Tags = row.Scope switch
                {
                    DatabaseScope => [new(MetricAttributes.Instance, instance), new(Database, db), new(ServiceTier, tier), new(MetricAttributes.ServiceObjective, objective)],
                    InstanceScope => [new(MetricAttributes.Instance, instance), new(ServiceTier, tier), new(MetricAttributes.ServiceObjective, objective)],
                    _ => [new(MetricAttributes.Instance, instance), new(Database, db), new(LogRateComponent, MetricAttributes.Limit(row.Component ?? "Unknown"))],
                };
                UsedTags = row.Scope == InstanceScope ? [new(MetricAttributes.Instance, instance)] : [new(MetricAttributes.Instance, instance), new(Database, db)];
            }

            public LogRateRow Row { get; set; }

            public KeyValuePair<string, object?>[] UsedTags { get; }
        }
    }
}

/// <summary>Azure's log-rate governance of one database as the last poll read it.</summary>
/// <param name="Scope">database (SQL Database's own cap) or instance (Managed Instance's).</param>
/// <param name="Tier">The service tier (GeneralPurpose, BusinessCritical, Hyperscale, ...; Managed Instance's sku).</param>
/// <param name="ServiceObjective">slo_name, or Managed Instance's sku, hardware and vCores.</param>
/// <param name="LimitBytesPerSecond">The cap, bytes per second.</param>
/// <param name="LogWritePercent">The newest 15-second log write percentage of the cap (SQL Database), or null.</param>
/// <param name="UsedBytesPerSecond">The log rate written: the percentage of the cap, or Managed Instance's Log Bytes Flushed/sec of _Total.</param>
/// <param name="LimitingComponent">Hyperscale: the component other than the primary that sets the rate now, or null.</param>
/// <param name="LimitingBytesPerSecond">The rate that component allows now.</param>
public sealed record LogRateSnapshot(string Scope, string? Tier, string? ServiceObjective, long? LimitBytesPerSecond, double? LogWritePercent, double? UsedBytesPerSecond,
    string? LimitingComponent, long? LimitingBytesPerSecond)
{
    /// <summary>The share of the cap written (0..1 and more), when both are known.</summary>
    public double? ShareOfCap => UsedBytesPerSecond is { } used && LimitBytesPerSecond is > 0 and var cap ? used / cap : null;
}

/// <summary>The log_rate line's contract: a figure the server left NULL is absent.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(LogRateRow))]
internal sealed partial class LogRateJson : JsonSerializerContext;

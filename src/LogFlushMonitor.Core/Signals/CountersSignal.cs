using System.Data.Common;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// One row of <c>sys.dm_os_performance_counters</c> (trimmed), paired by the poll with its base row when
/// <see cref="CounterType"/> needs one.
/// </summary>
/// <param name="ObjectName">object_name after the colon, e.g. "Databases".</param>
/// <param name="CounterName">counter_name, e.g. "Log Flushes/sec".</param>
/// <param name="CounterInstance">instance_name: a database name, or "_Total" (the instance, exported as instance-level series).</param>
/// <param name="Value">cntr_value.</param>
/// <param name="CounterType">cntr_type; decides the arithmetic (<see cref="PerfCounterType"/>).</param>
/// <param name="BaseValue">cntr_value of the matching base row, 0 when the type has none.</param>
public readonly record struct CounterRow(
    [property: JsonPropertyName("object"), JsonRequired] string ObjectName,
    [property: JsonPropertyName("counter"), JsonRequired] string CounterName,
    [property: JsonPropertyName("counter_instance"), JsonRequired] string CounterInstance,
    [property: JsonPropertyName("value"), JsonRequired] long Value,
    [property: JsonPropertyName("cntr_type"), JsonRequired] int CounterType,
    [property: JsonPropertyName("base")] long BaseValue = 0);

/// <summary>
/// The performance counters of the Databases object (and the two of Database Replica a synchronous commit's remote half
/// is timed by) from <c>sys.dm_os_performance_counters</c>: each counter exported by the arithmetic of its type
/// (docs/sqlserver.md), per database and for the instance's <c>_Total</c>; the watched databases' Log Flushes/sec, Log
/// Bytes Flushed/sec and Log Flush Wait Time held against the events (the agreement and each database's event loss);
/// a database whose counters vanish was dropped or taken offline, and its event series go with it.
/// </summary>
/// <remarks>
/// Azure SQL Database (engine edition 5) and Managed Instance (8) name a database's counter instance by its physical
/// database name, a GUID, sometimes with an identifier appended: those are mapped to database names through
/// sys.databases (on the first 36 characters, as Telegraf does) before anything is filtered, and an instance that maps
/// to no database is not exported. On SQL Database only the current database is kept: an elastic pool lists its
/// neighbours too, and _Total sums them with the internal instances (DBA Dash keeps no system or internal name there).
/// </remarks>
public sealed class CountersSignal : Signal<CounterRow>
{
    /// <summary>The object we read, after the instance prefix.</summary>
    public const string DatabasesObject = DatabasesCounters.Object;

    /// <summary>SERVERPROPERTY('EngineEdition') of Azure SQL Database.</summary>
    public const int AzureSqlDatabase = 5;

    /// <summary>SERVERPROPERTY('EngineEdition') of Azure SQL Managed Instance.</summary>
    public const int AzureManagedInstance = 8;

    private const int GuidLength = 36;

    private static readonly string[] Inst = [Instance];
    private static readonly string[] InstDb = [Instance, Database];
    private static readonly string[] InstDbCounter = [Instance, Database, CounterObject, CounterName];
    private static readonly string[] InstCounter = [Instance, CounterObject, CounterName];

    /// <summary>Every counter family, with the counters it reads, in the order they are exported.</summary>
    internal static readonly IReadOnlyList<CounterFamily> CounterFamilies =
    [
        // Performance counters of the Databases object, by cntr_type.
        Counter("sqlserver.log.flushes", "{flush}", DatabasesCounters.LogFlushes, UnitScale.None,
            "Log flushes counted by the server (Log Flushes/sec, cumulative), increase since monitoring began.",
            "log flushes (`Log Flushes/sec`)", "`rate(sqlserver_log_flushes_total[1m])`"),
        Counter("sqlserver.log.flushed.bytes", "By", DatabasesCounters.LogBytesFlushed, UnitScale.None,
            "Bytes of log flushed (Log Bytes Flushed/sec, cumulative), increase since monitoring began.",
            "bytes flushed (`Log Bytes Flushed/sec`)", "`rate(sqlserver_log_flushed_bytes_total[1m])`; average flush size: that divided by the flushes' rate"),
        Counter("sqlserver.log.flush.waits", "{commit}", DatabasesCounters.LogFlushWaits, UnitScale.None,
            "Commits that waited for a log flush (Log Flush Waits/sec, cumulative), increase since monitoring began.",
            "commits that waited for a flush (`Log Flush Waits/sec`)", "`rate(sqlserver_log_flush_waits_total[1m])`"),
        Counter("sqlserver.log.flush.wait.time", "s", DatabasesCounters.LogFlushWaitTime, UnitScale.MillisecondsToSeconds,
            "Time commits waited for log flushes (Log Flush Wait Time, cumulative milliseconds on the server), increase since monitoring began.",
            "time commits waited (`Log Flush Wait Time`, cumulative ms on the server)",
            "average wait per waiting commit: `rate(sqlserver_log_flush_wait_time_seconds_total[5m]) / rate(sqlserver_log_flush_waits_total[5m])`"),
        Point("sqlserver.log.usage", "1", DatabasesCounters.PercentLogUsed, UnitScale.PercentToRatio, CounterScope.Database,
            "Fraction of the log file in use (Percent Log Used / 100).",
            "fraction of the log in use (`Percent Log Used` / 100)", "`sqlserver_log_usage_ratio > 0.8`"),
        Point("sqlserver.log.used.size", "By", DatabasesCounters.LogUsedSize, UnitScale.KilobytesToBytes, CounterScope.Database,
            "Log space in use (Log File(s) Used Size (KB) x 1024).",
            "log space in use (`Log File(s) Used Size (KB)` × 1024)", "`sqlserver_log_used_size_bytes / sqlserver_log_size_bytes`"),
        Point("sqlserver.log.size", "By", DatabasesCounters.LogSize, UnitScale.KilobytesToBytes, CounterScope.Database,
            "Size of the log files (Log File(s) Size (KB) x 1024).",
            "size of the log files (`Log File(s) Size (KB)` × 1024)", "growth over a day: `delta(sqlserver_log_size_bytes[1d])`"),
        Point("sqlserver.log.growths", "{growth}", DatabasesCounters.LogGrowths, UnitScale.None, CounterScope.Database,
            "Times the log has grown (Log Growths: a count since the instance started, although its type is a point value).",
            "times the log files have grown (`Log Growths`, a count since the instance started although its `cntr_type` is 65792, a point value: a real capture shows it so); with `sqlserver.log.headroom` it says whether the log still can",
            "growths in the last hour: `delta(sqlserver_log_growths[1h])`"),
        Other("sqlserver.performance.total", MetricKind.Counter, "{value}", CounterArithmetic.Cumulative, CounterScope.Database,
            "Any other cumulative (BULK_COUNT) counter polled, increase since monitoring began, in the counter's own unit.",
            "any other BULK_COUNT counter polled, in the counter's own unit (only counters opted in with `Sources:SqlServer:Counters`)",
            "`rate(sqlserver_performance_total{sqlserver_counter_name=\"...\"}[1m])`"),
        Other("sqlserver.performance.value", MetricKind.Gauge, "{value}", CounterArithmetic.PointValue, CounterScope.Database,
            "Any other point-value (RAWCOUNT) counter polled, in the counter's own unit.",
            "any other point-value counter (LARGE_RAWCOUNT / RAWCOUNT), in its own unit",
            "`sqlserver_performance_value{sqlserver_counter_name=\"Log Flush Write Time (ms)\"}`"),
        Other("sqlserver.performance.fraction", MetricKind.Gauge, "1", CounterArithmetic.Fraction, CounterScope.Database,
            "Any fraction counter polled (RAW_FRACTION / its base), e.g. Log Cache Hit Ratio, as 0..1.",
            "a RAW_FRACTION counter divided by its base, e.g. `Log Cache Hit Ratio`, 0..1",
            "`sqlserver_performance_fraction_ratio{sqlserver_counter_name=\"Log Cache Hit Ratio\"}`"),
        Other("sqlserver.performance.average", MetricKind.Gauge, "{value}", CounterArithmetic.Average, CounterScope.Database,
            "Any average counter polled (AVERAGE_BULK): delta value / delta base over the last poll interval.",
            "an AVERAGE_BULK counter: Δvalue / Δbase over the last poll interval, in its own unit",
            "`sqlserver_performance_average{sqlserver_counter_name=\"...\"}`"),

        // The same counters' _Total instance: the whole SQL Server instance, its internal databases included, so its own
        // families rather than a database name a sum over databases would count twice.
        Counter("sqlserver.instance.log.flushes", "{flush}", DatabasesCounters.LogFlushes, UnitScale.None,
            "Log flushes of the whole instance, internal databases included (Log Flushes/sec of _Total), increase since monitoring began.",
            "log flushes of the whole instance",
            "flushes outside the watched databases: `sum by (sqlserver_instance_name) (rate(sqlserver_instance_log_flushes_total[5m])) - sum by (sqlserver_instance_name) (rate(sqlserver_log_flushes_total[5m]))`",
            CounterScope.Instance),
        Counter("sqlserver.instance.log.flushed.bytes", "By", DatabasesCounters.LogBytesFlushed, UnitScale.None,
            "Bytes of log flushed by the whole instance (Log Bytes Flushed/sec of _Total), increase since monitoring began.",
            "bytes flushed", "`rate(sqlserver_instance_log_flushed_bytes_total[1m])`", CounterScope.Instance),
        Counter("sqlserver.instance.log.flush.waits", "{commit}", DatabasesCounters.LogFlushWaits, UnitScale.None,
            "Commits of the whole instance that waited for a log flush (Log Flush Waits/sec of _Total), increase since monitoring began.",
            "commits that waited for a flush", "`rate(sqlserver_instance_log_flush_waits_total[1m])`", CounterScope.Instance),
        Counter("sqlserver.instance.log.flush.wait.time", "s", DatabasesCounters.LogFlushWaitTime, UnitScale.MillisecondsToSeconds,
            "Time commits of the whole instance waited for log flushes (Log Flush Wait Time of _Total), increase since monitoring began.",
            "time commits waited (`Log Flush Wait Time`, ms on the server)", "`rate(sqlserver_instance_log_flush_wait_time_seconds_total[5m])`", CounterScope.Instance),
        Point("sqlserver.instance.log.used.size", "By", DatabasesCounters.LogUsedSize, UnitScale.KilobytesToBytes, CounterScope.Instance,
            "Log space in use on the whole instance (Log File(s) Used Size (KB) of _Total x 1024).",
            "log space in use, all databases", "`sqlserver_instance_log_used_size_bytes / sqlserver_instance_log_size_bytes`"),
        Point("sqlserver.instance.log.size", "By", DatabasesCounters.LogSize, UnitScale.KilobytesToBytes, CounterScope.Instance,
            "Size of all log files of the instance (Log File(s) Size (KB) of _Total x 1024).",
            "size of all log files", "`delta(sqlserver_instance_log_size_bytes[1d])`"),
        Other("sqlserver.instance.performance.total", MetricKind.Counter, "{value}", CounterArithmetic.Cumulative, CounterScope.Instance,
            "_Total of any other cumulative counter polled, increase since monitoring began, in the counter's own unit.",
            "`_Total` of an opted-in BULK_COUNT counter", "`rate(sqlserver_instance_performance_total{sqlserver_counter_name=\"Transactions/sec\"}[1m])`"),
        Other("sqlserver.instance.performance.value", MetricKind.Gauge, "{value}", CounterArithmetic.PointValue, CounterScope.Instance,
            "_Total of any other point-value counter polled, in the counter's own unit.", "`_Total` of an opted-in point value", ""),
        Other("sqlserver.instance.performance.fraction", MetricKind.Gauge, "1", CounterArithmetic.Fraction, CounterScope.Instance,
            "_Total of any fraction counter polled (RAW_FRACTION / its base), as 0..1.", "`_Total` of an opted-in fraction, 0..1", ""),
        Other("sqlserver.instance.performance.average", MetricKind.Gauge, "{value}", CounterArithmetic.Average, CounterScope.Instance,
            "_Total of any average counter polled (AVERAGE_BULK): delta value / delta base over the last poll interval.", "`_Total` of an opted-in average", ""),

        // Availability-group databases (Database Replica object): the remote half of a synchronous commit, timed.
        Named(new()
        {
            Name = "sqlserver.replica.transaction.delay", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDb, Section = MetricSection.Replicas,
            Description = "Time commits waited for synchronous secondaries to acknowledge (Database Replica: Transaction Delay, cumulative milliseconds on the server), increase since monitoring began.",
            Meaning = "time commits on this primary database waited for the synchronous secondaries' acknowledgement: `Transaction Delay` of the `Database Replica` object (cumulative milliseconds on the server, exported in seconds); divided by the next one's increase it is the average remote-harden delay per transaction",
            PromQL = "average sync delay per transaction: `rate(sqlserver_replica_transaction_delay_seconds_total[5m]) / rate(sqlserver_replica_mirrored_write_transactions_total[5m])`",
        }, new CounterSource(DatabaseReplicaCounters.TransactionDelay, Cumulative: true, CounterScope.Database, UnitScale.MillisecondsToSeconds, DatabaseReplicaCounters.Object)),
        Named(new()
        {
            Name = "sqlserver.replica.mirrored_write.transactions", Unit = "{transaction}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDb, Section = MetricSection.Replicas,
            Description = "Transactions that waited for the log to reach a synchronous secondary before committing (Database Replica: Mirrored Write Transactions/sec, cumulative), increase since monitoring began.",
            Meaning = "transactions written on this primary database that waited for the log to reach the secondary before committing: `Mirrored Write Transactions/sec` of the `Database Replica` object (a cumulative count despite the name)",
            PromQL = "`rate(sqlserver_replica_mirrored_write_transactions_total[5m])`",
        }, new CounterSource(DatabaseReplicaCounters.MirroredWriteTransactions, Cumulative: true, CounterScope.Database, UnitScale.None, DatabaseReplicaCounters.Object)),
    ];

    internal static readonly MetricDefinition EventLoss = new()
    {
        Name = "sqlserver.monitor.events.loss", Unit = "1", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDb, Section = MetricSection.Monitor,
        Description = "Fraction of the log flushes the server counted (Log Flushes/sec increase) for which no log_flush_start event arrived, per database, since monitoring began.",
        Meaning = "share of the flushes the server counted (`Log Flushes/sec` increase) for which no `log_flush_start` event arrived, since monitoring began: end-to-end event loss no other tool reports",
        PromQL = "`sqlserver_monitor_events_loss_ratio > 0.01`",
    };

    /// <summary>
    /// The counters a family reads by name (of the Databases object, and two of Database Replica): always polled, and
    /// named by <see cref="NamedStatement"/>'s text, which is made from this list (one place for the names), in catalog order.
    /// </summary>
    public static IReadOnlyList<string> NamedCounters { get; } =
        [.. CounterFamilies.Select(f => f.Source).OfType<CounterSource>().Select(c => c.Counter).Distinct(StringComparer.Ordinal)];

    /// <summary>
    /// The engine edition (5 = Azure SQL Database, 8 = Azure SQL Managed Instance) and the current database: there the
    /// counters name databases by their physical names and the poll maps them back (<see cref="PhysicalNamesStatement"/>).
    /// </summary>
    public static readonly SignalStatement IdentityStatement = new("server_identity", """
        SELECT CAST(SERVERPROPERTY('EngineEdition') AS int) AS EngineEdition, DB_NAME() AS CurrentDatabase
        """, "SERVERPROPERTY");

    /// <summary>
    /// Each database's physical name, which Azure SQL Database and Managed Instance use as the counters' instance_name
    /// (a GUID, some with an identifier appended after the 36 characters: influxdata/telegraf azuresqldbqueries.go and
    /// azuresqlmanagedqueries.go map it the same way). Sent on those editions only.
    /// </summary>
    public static readonly SignalStatement PhysicalNamesStatement = new("physical_database_names", """
        SELECT name AS Name, physical_database_name AS PhysicalName
        FROM sys.databases
        """, "sys.databases");

    /// <summary>
    /// The counters the families name, asked for by name: a real server has about 47 counters per database and we export
    /// these by default. nchar columns compare without their trailing blanks. Every database's rows come back; the poll
    /// keeps the watched ones. The object is matched on the part after the colon (<c>SQLServer:Databases</c> or
    /// <c>MSSQL$NAME:Databases</c>); the Database Replica rows exist only for availability-group databases.
    /// </summary>
    public static readonly SignalStatement NamedStatement = new("counters", $"""
        SELECT object_name AS ObjectName, counter_name AS CounterName, instance_name AS InstanceName,
               cntr_value AS Value, cntr_type AS Type
        FROM sys.dm_os_performance_counters
        WHERE (object_name LIKE N'%:Databases%'
               AND counter_name IN ({List(DatabasesCounters.Object)}))
           OR (object_name LIKE N'%:Database Replica%'
               AND counter_name IN ({List(DatabaseReplicaCounters.Object)}))
        """, "sys.dm_os_performance_counters");

    /// <summary>
    /// Every counter of the Databases object, for when Sources:SqlServer:Counters asks for more than the named ones: the
    /// configured names and patterns are matched by the poll, so no configured text enters the statement. The Database
    /// Replica counters come with them, as in <see cref="NamedStatement"/>.
    /// </summary>
    public static readonly SignalStatement AllStatement = new("all_database_counters", $"""
        SELECT object_name AS ObjectName, counter_name AS CounterName, instance_name AS InstanceName,
               cntr_value AS Value, cntr_type AS Type
        FROM sys.dm_os_performance_counters
        WHERE object_name LIKE N'%:Databases%'
           OR (object_name LIKE N'%:Database Replica%'
               AND counter_name IN ({List(DatabaseReplicaCounters.Object)}))
        """, "sys.dm_os_performance_counters");

    internal CountersSignal()
        : base("counters")
    {
        Recording = new SignalRecording<CounterRow>(this, "counter", "counters", CounterJson.Default.CounterRow,
            r => r.ObjectName is null ? "invalid field 'object': expected a string"
                : r.CounterName is null ? "invalid field 'counter': expected a string"
                : r.CounterInstance is null ? "invalid field 'counter_instance': expected a string"
                : null);
        Families = [.. CounterFamilies.Select(f => f.Family), EventLoss];
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; }

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) =>
        server.EngineEdition is AzureSqlDatabase or AzureManagedInstance
            ? [IdentityStatement, PhysicalNamesStatement, NamedStatement, AllStatement]
            : [IdentityStatement, NamedStatement, AllStatement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => "sys.dm_os_performance_counters (the Databases object)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, server);

    /// <summary>The counters' part of a poll, as <c>check</c> runs it once (its figures say what is missing).</summary>
    public static Poller NewCheckPoller(PollContext context, ServerProfile server) => new(SignalRegistry.Counters, context, server);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>
    /// The log-flush counters of each database (and of _Total) over the recording: flushes, bytes and waiting commits a
    /// second from the increase between the first and the last poll (a drop is a restart from zero), bytes per flush, the
    /// wait per waiting commit, and the last fraction of the log in use; other counters recorded are counted in a note.
    /// </summary>
    private sealed class View(string signal) : SignalView<CounterRow>
    {
        private static readonly string[] Shown = [DatabasesCounters.LogFlushes, DatabasesCounters.LogBytesFlushed, DatabasesCounters.LogFlushWaits, DatabasesCounters.LogFlushWaitTime];
        private readonly Dictionary<(string Instance, string Database), (CumulativeFigure[] Figures, long? PercentUsed)> _databases = [];
        private readonly HashSet<string> _others = new(StringComparer.Ordinal);

        protected override void Observe(string instance, DateTime timestampUtc, in CounterRow row)
        {
            var shown = string.Equals(row.ObjectName, DatabasesObject, StringComparison.Ordinal) ? Array.IndexOf(Shown, row.CounterName) : -1;
            var percent = string.Equals(row.ObjectName, DatabasesObject, StringComparison.Ordinal) && row.CounterName == DatabasesCounters.PercentLogUsed;
            if (shown < 0 && !percent)
            {
                _others.Add(row.ObjectName + ": " + row.CounterName);
                return;
            }

            var key = (instance, row.CounterInstance);
            if (!_databases.TryGetValue(key, out var db))
            {
                db = (new CumulativeFigure[Shown.Length], null);
            }

            if (percent)
            {
                db.PercentUsed = row.Value;
            }
            else
            {
                db.Figures[shown].Add(row.Value, timestampUtc);
            }

            _databases[key] = db;
        }

        public override SignalTable? Table()
        {
            if (_databases.Count == 0 && _others.Count == 0)
            {
                return null;
            }

            var rows = _databases.OrderBy(d => d.Key.Instance, StringComparer.Ordinal)
                .ThenBy(d => d.Key.Database == DatabasesCounters.TotalInstance ? 1 : 0).ThenBy(d => d.Key.Database, StringComparer.Ordinal)
                .Select(d =>
                {
                    var (flushes, bytes, waits, waitMs) = (d.Value.Figures[0], d.Value.Figures[1], d.Value.Figures[2], d.Value.Figures[3]);
                    return (IReadOnlyList<object?>)[
                        d.Key.Instance, d.Key.Database, flushes.PerSecond, bytes.PerSecond,
                        flushes.Increase > 0 && bytes.Started ? (double)bytes.Increase / flushes.Increase : null,
                        waits.PerSecond,
                        waits.Increase > 0 && waitMs.Started ? (double)waitMs.Increase / waits.Increase : null,
                        d.Value.PercentUsed,
                        (long)Math.Max(Math.Max(flushes.Resets, bytes.Resets), Math.Max(waits.Resets, waitMs.Resets)),
                    ];
                });
            var notes = new List<string>
            {
                "Rates are the increase between the first and the last poll of each counter divided by the seconds between them; a counter lower than the poll before is a restart (of the server, or of the database) and counts from zero. _Total is the whole instance, its internal databases included.",
            };
            if (_others.Count > 0)
            {
                notes.Add($"{_others.Count:N0} other counter(s) recorded, not shown here: {string.Join(", ", _others.Order(StringComparer.Ordinal).Take(8))}{(_others.Count > 8 ? ", ..." : ".")}");
            }

            return new SignalTable(signal, "Log flush counters (sys.dm_os_performance_counters)",
                [new("instance"), new("database"), new("flushes", "/s"), new("bytes flushed", "B/s"), new("bytes per flush", "B"),
                    new("commits waiting", "/s"), new("wait per waiting commit", "ms"), new("log used", "%"), new("restarts")],
                [.. rows], notes);
        }
    }

    /// <summary>The counters of <paramref name="counterObject"/> a family names, as the statement lists them.</summary>
    private static string List(string counterObject) =>
        string.Join(", ", CounterFamilies.Select(f => f.Source).OfType<CounterSource>().Where(c => c.Object == counterObject)
            .Select(c => c.Counter).Distinct(StringComparer.Ordinal).Select(c => $"N'{c}'"));

    private static CounterFamily Named(MetricDefinition family, CounterSource source) => new(family, source);

    private static CounterFamily Counter(string name, string unit, string counter, UnitScale scale, string description, string meaning, string promQL, CounterScope scope = CounterScope.Database) => new(new()
    {
        Name = name, Unit = unit, Kind = MetricKind.Counter, IsInteger = scale.IsNone, Description = description, Meaning = meaning, PromQL = promQL,
        Attributes = scope == CounterScope.Database ? InstDb : Inst,
        Section = scope == CounterScope.Database ? MetricSection.Counters : MetricSection.InstanceCounters,
    }, new CounterSource(counter, Cumulative: true, scope, scale));

    private static CounterFamily Point(string name, string unit, string counter, UnitScale scale, CounterScope scope, string description, string meaning, string promQL) => new(new()
    {
        Name = name, Unit = unit, Kind = MetricKind.Gauge, IsInteger = unit == "By", Description = description, Meaning = meaning, PromQL = promQL,
        Attributes = scope == CounterScope.Database ? InstDb : Inst,
        Section = scope == CounterScope.Database ? MetricSection.Counters : MetricSection.InstanceCounters,
    }, new CounterSource(counter, Cumulative: false, scope, scale));

    private static CounterFamily Other(string name, MetricKind kind, string unit, CounterArithmetic arithmetic, CounterScope scope, string description, string meaning, string promQL) => new(new()
    {
        Name = name, Unit = unit, Kind = kind, IsInteger = false, Description = description, Meaning = meaning, PromQL = promQL,
        Attributes = scope == CounterScope.Database ? InstDbCounter : InstCounter,
        Section = scope == CounterScope.Database ? MetricSection.Counters : MetricSection.InstanceCounters,
    }, new OtherCountersSource(arithmetic, scope));

    /// <summary>
    /// Whether Azure's physical-name counter instances are mapped to database names (always, but for the test that shows the
    /// capture replay failing when this belief is taken away: CaptureReplayTests).
    /// </summary>
    internal static bool MapsPhysicalNames { get; set; } = true;

    /// <summary>
    /// The database a counter instance stands for on Azure: a name that is no GUID stays as it is (_Total, master,
    /// tempdb, the internal instances); a GUID maps through its first 36 characters, or to nothing (null).
    /// </summary>
    public static (string? Name, bool Exact) MapPhysical(string raw, IReadOnlyDictionary<string, string> physical)
    {
        if (raw.Length < GuidLength || !Guid.TryParse(raw.AsSpan(0, GuidLength), out _))
        {
            return (raw, true);
        }

        return physical.TryGetValue(raw[..GuidLength], out var name) ? (name, raw.Length == GuidLength) : (null, false);
    }

    /// <summary>
    /// What a counter and its base have in common: "Log Cache Hit Ratio" / "Log Cache Hit Ratio Base"; the engine
    /// also writes "base" in lower case, drops " (ms)" and spells "Avg" as "Average" in some base names. A few pairs share
    /// no name at all (<see cref="UnlikeBases"/>).
    /// </summary>
    public static string BaseKey(string counter, bool isBase)
    {
        if (!isBase && UnlikeBases.TryGetValue(counter, out var baseName))
        {
            return BaseKey(baseName, isBase: true);
        }

        var key = counter.ToLowerInvariant();
        if (isBase && key.EndsWith(" base", StringComparison.Ordinal))
        {
            key = key[..^5];
        }

        key = key.Replace(" (ms)", "", StringComparison.Ordinal);
        return key.StartsWith("average ", StringComparison.Ordinal) ? "avg " + key[8..] : key;
    }

    /// <summary>
    /// Databases counters whose base row is named otherwise. "Avg Dist From EOL/LP Request" goes with "Log Pool Requests
    /// Base" (measured on SQL Server 2017, 2022 and 2025: rudi-bruchez/sql-auditor, docs/performance-counters-spec.md);
    /// "XTP Controller DLC Latency/Fetch" with "XTP Controller DLC Latency Base" (both names in Microsoft's "SQL Server,
    /// Databases object" page; the pairing is a belief, docs/sqlserver.md).
    /// </summary>
    private static readonly Dictionary<string, string> UnlikeBases = new(StringComparer.OrdinalIgnoreCase)
    {
        ["Avg Dist From EOL/LP Request"] = "Log Pool Requests Base",
        ["XTP Controller DLC Latency/Fetch"] = "XTP Controller DLC Latency Base",
    };

    /// <summary>
    /// Reads the Databases object: names trimmed, the object matched on the part after the colon, base rows paired with
    /// their fraction or average row, internal and filtered-out instances skipped. The arithmetic is the state's, driven by
    /// cntr_type. By default the statement names the counters the families read; with more selected it reads the whole
    /// object and keeps the selected counters here (and the base rows their fractions and averages need). No silence hides
    /// a fault (docs/sqlserver.md): no row of the object at all is a failure of the poller (error.type counters_missing,
    /// down); a watched database without counters is a named problem (degraded); each is logged once while it lasts.
    /// </summary>
    public sealed class Poller : SignalPoller
    {
        private readonly CountersSignal _signal;
        private readonly ServerProfile _server;
        private bool _unmatchedLogged;
        private bool _countersMissing;
        private IReadOnlyList<string> _missingReported = [];
        private HashSet<string> _missingBefore = new(StringComparer.OrdinalIgnoreCase);

        internal Poller(CountersSignal signal, PollContext context, ServerProfile server)
            : base(context)
        {
            _signal = signal;
            _server = server;
        }

        /// <summary>
        /// Rows of the Databases object the last poll read, before any filter, or -1 before the first poll. Zero means the
        /// instance's performance counters are not registered (Microsoft's page of the DMV; setup error 3409): every counter
        /// series is missing, which a quiet server never causes (the rows exist at zero).
        /// </summary>
        public int ObjectRows { get; private set; } = -1;

        /// <summary>
        /// Watched databases that should have counter rows and had none in the last two polls (one with
        /// <see cref="SignalSettings.ConfirmMissingCounters"/> off): online in sys.databases (neither AUTO_CLOSE nor a
        /// snapshot), the current database on SQL Database, or a name of IncludeDatabases that is no database at all
        /// ("name (no such database)").
        /// </summary>
        public IReadOnlyList<string> MissingDatabases { get; private set; } = [];

        /// <inheritdoc />
        public override bool Healthy => ObjectRows != 0;

        /// <inheritdoc />
        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var identity = (await SqlRows.ReadAsync(connection, Context, IdentityStatement, c => (Edition: c.Int32OrNull("EngineEdition"), Current: c.StringOrNull("CurrentDatabase")), cancellationToken)
                .ConfigureAwait(false)).FirstOrDefault();
            var physical = identity.Edition is AzureSqlDatabase or AzureManagedInstance
                ? await ReadPhysicalNamesAsync(connection, cancellationToken).ConfigureAwait(false)
                : null;

            // The lists are applied to the rows below (after mapping, where instance names are physical names): no
            // parameter, so a list of any length works.
            var selection = Context.Settings.Counters;
            var rows = await SqlRows.ReadAsync(connection, Context, selection.IsDefaultOnly ? NamedStatement : AllStatement, c => (
                Object: c.String("ObjectName"), Counter: c.String("CounterName"), Instance: c.String("InstanceName"),
                Value: c.Int64("Value"), Type: c.Int32("Type")), cancellationToken).ConfigureAwait(false);
            var now = Context.UtcNow;
            var filter = Context.Filter;
            var bases = new Dictionary<(string Instance, string Key), (long Value, bool Exact)>();
            var values = new Dictionary<(string Counter, string Instance), (long Value, int Type, bool Exact)>();
            var replicaValues = new Dictionary<(string Counter, string Instance), (long Value, int Type)>();
            HashSet<string>? unmatched = null;
            var seen = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
            var objectRows = 0;
            foreach (var row in rows)
            {
                var objectName = row.Object.Trim();
                var colon = objectName.IndexOf(':', StringComparison.Ordinal);
                var objectPart = colon < 0 ? objectName : objectName[(colon + 1)..];
                // The Database Replica rows (availability-group databases) ride along; the coverage checks are the Databases object's.
                var replica = string.Equals(objectPart, DatabaseReplicaCounters.Object, StringComparison.OrdinalIgnoreCase);
                if (!replica && !string.Equals(objectPart, DatabasesObject, StringComparison.OrdinalIgnoreCase))
                {
                    continue;
                }

                objectRows += replica ? 0 : 1;
                var raw = row.Instance.Trim();
                var (instance, exact) = physical is null || !MapsPhysicalNames ? (raw, true) : MapPhysical(raw, physical);
                if (instance is null)
                {
                    (unmatched ??= new(StringComparer.OrdinalIgnoreCase)).Add(raw);
                    continue;
                }

                if (identity.Edition == AzureSqlDatabase && !string.Equals(instance, identity.Current, StringComparison.OrdinalIgnoreCase))
                {
                    continue;
                }

                if (!filter.WatchesCounterInstance(instance))
                {
                    continue;
                }

                if (replica)
                {
                    // Named counters only, per database: the object's _Total is no database and no family reads it.
                    var name = row.Counter.Trim();
                    if (instance != DatabasesCounters.TotalInstance && selection.Matches(name))
                    {
                        replicaValues[(name, instance)] = (row.Value, row.Type);
                    }

                    continue;
                }

                seen.Add(instance);

                // Two rows that map to one database (a GUID with and without a suffix): the exact physical name wins.
                var counter = row.Counter.Trim();
                if (row.Type == PerfCounterType.LargeRawBase)
                {
                    var key = (instance, BaseKey(counter, isBase: true));
                    if (!bases.TryGetValue(key, out var known) || (exact && !known.Exact))
                    {
                        bases[key] = (row.Value, exact);
                    }
                }
                else if (selection.Matches(counter))
                {
                    var key = (counter, instance);
                    if (!values.TryGetValue(key, out var known) || (exact && !known.Exact))
                    {
                        values[key] = (row.Value, row.Type, exact);
                    }
                }
            }

            if (unmatched is not null && !_unmatchedLogged)
            {
                _unmatchedLogged = true;
                SignalLog.CounterInstancesUnmatched(Context.Logger, Context.Instance, unmatched.Count);
            }

            var batch = new List<CounterRow>(values.Count + replicaValues.Count);
            foreach (var ((counter, instance), (value, type, _)) in values)
            {
                long baseValue = 0;
                if (type is PerfCounterType.LargeRawFraction or PerfCounterType.AverageBulk)
                {
                    // Without its base a fraction means nothing: the state treats base 0 as "no value".
                    baseValue = bases.TryGetValue((instance, BaseKey(counter, isBase: false)), out var b) ? b.Value : 0;
                }

                batch.Add(new CounterRow(DatabasesObject, counter, instance, value, type, baseValue));
            }

            foreach (var ((counter, instance), (value, type)) in replicaValues)
            {
                batch.Add(new CounterRow(DatabaseReplicaCounters.Object, counter, instance, value, type, 0));
            }

            Context.Deliver(_signal.Batch(Context.Instance, now, [.. batch], endsPoll: true));
            ObjectRows = objectRows;
            var missing = objectRows == 0 ? new HashSet<string>(StringComparer.OrdinalIgnoreCase) : Expected(identity).Where(e => !seen.Contains(e.Name)).Select(e => e.Label).ToHashSet(StringComparer.OrdinalIgnoreCase);
            MissingDatabases = [.. missing.Where(m => !Context.Settings.ConfirmMissingCounters || _missingBefore.Contains(m)).Order(StringComparer.OrdinalIgnoreCase)];
            _missingBefore = missing;
            ReportCoverage();
        }

        /// <summary>No counters at all, or watched databases without counters: said to the health registry and the log, once per change.</summary>
        private void ReportCoverage()
        {
            if (Context.Health is not { } health)
            {
                return;
            }

            var name = Context.Instance;
            if (ObjectRows == 0)
            {
                health.Failed(name, SourceComponents.Poller, CountersMissingError);
                health.SetProblem(name, SourceComponents.Poller, CountersMissingError,
                    "sys.dm_os_performance_counters has no row of the Databases object: the instance's performance counters are not registered", countError: false);
                if (!_countersMissing)
                {
                    _countersMissing = true;
                    SignalLog.CountersMissing(Context.Logger, name);
                }

                return;
            }

            if (_countersMissing)
            {
                _countersMissing = false;
                health.SetProblem(name, SourceComponents.Poller, CountersMissingError, null);
                SignalLog.KindRecovered(Context.Logger, name, _signal.Name);
            }

            var missing = MissingDatabases;
            if (!missing.SequenceEqual(_missingReported, StringComparer.OrdinalIgnoreCase))
            {
                _missingReported = missing;
                if (missing.Count > 0)
                {
                    SignalLog.DatabasesWithoutCounters(Context.Logger, name, string.Join(", ", missing));
                }
                else
                {
                    SignalLog.DatabasesWithCounters(Context.Logger, name);
                }
            }

            health.SetProblem(name, SourceComponents.Poller, DatabaseMissingError,
                missing.Count > 0 ? "watched databases without performance counters: " + string.Join(", ", missing) : null);
        }

        /// <summary>The watched databases that should have counter rows now, with how to name them when they have none.</summary>
        private IEnumerable<(string Name, string Label)> Expected((int? Edition, string? Current) identity)
        {
            var filter = Context.Filter;
            if (identity.Edition == AzureSqlDatabase)
            {
                if (identity.Current is { } current && filter.Watches(current))
                {
                    yield return (current, current);
                }

                yield break;
            }

            if (_server.AzureSqlDatabase || Context.Databases is not { Count: > 0 } known)
            {
                yield break; // not read yet: nothing to compare with
            }

            foreach (var d in known)
            {
                if (d.State == "ONLINE" && !d.AutoClose && !d.IsSnapshot && filter.Watches(d.Name))
                {
                    yield return (d.Name, d.Name);
                }
            }

            foreach (var name in filter.Include.Where(n => !known.Any(d => string.Equals(d.Name, n, StringComparison.OrdinalIgnoreCase)) && filter.Watches(n)))
            {
                yield return (name, name + " (no such database)");
            }
        }

        /// <summary>Physical name (a GUID) to database name; master is left out: on SQL Database its physical name is the user database's.</summary>
        private async Task<Dictionary<string, string>> ReadPhysicalNamesAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var map = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            foreach (var d in await SqlRows.ReadAsync(connection, Context, PhysicalNamesStatement, c => (Name: c.StringOrNull("Name"), Physical: c.StringOrNull("PhysicalName")), cancellationToken).ConfigureAwait(false))
            {
                if (d.Name is { } name && d.Physical is { } physical && !string.Equals(name, "master", StringComparison.OrdinalIgnoreCase))
                {
                    map.TryAdd(physical.Trim(), name);
                }
            }

            return map;
        }
    }

    /// <summary>error.type of an instance with no row of the Databases object.</summary>
    public const string CountersMissingError = "counters_missing";

    /// <summary>error.type of a watched database without counters.</summary>
    public const string DatabaseMissingError = "database_missing";

    /// <summary>
    /// Each counter series of the instance with its type's arithmetic, created in the group of the family it feeds (so a
    /// collect reads each family's series without scanning the others); the databases' Log Flushes/sec series measure
    /// each database's event loss. A poll's end retires the series it did not refresh, and a database whose counters all
    /// vanished loses its event series too (dropped or taken offline).
    /// </summary>
    internal sealed class State(InstanceState instance) : PolledState<CounterRow>
    {
        private readonly Dictionary<(string Object, string Counter, string Instance), CounterSeries> _series = [];

        /// <summary>The series of each family, by the family's position in <see cref="CounterFamilies"/>, in the order they were created.</summary>
        private readonly List<CounterSeries>?[] _groups = new List<CounterSeries>?[CounterFamilies.Count];

        /// <summary>The databases' Log Flushes/sec series, against which each database's event loss is measured.</summary>
        private readonly List<CounterSeries> _lossSeries = [];

        /// <summary>Whether each counter name seen is selected, so a poll matches each name once (a bounded set: the names a server has).</summary>
        private readonly Dictionary<string, bool> _selected = new(StringComparer.Ordinal);

        /// <summary>What the series of each counter share, by object, counter, type and whether it is <c>_Total</c>.</summary>
        private readonly Dictionary<(string ObjectName, string CounterName, int CounterType, bool Total), CounterKind> _kinds = [];

        /// <summary>Every counter series, in the order they were created.</summary>
        public IEnumerable<CounterSeries> Series => _series.Values;

        /// <summary>The series of one counter of one database or <c>_Total</c>, if the last poll read it.</summary>
        public CounterSeries? Find(string counterObject, string counter, string counterInstance) => _series.GetValueOrDefault((counterObject, counter, counterInstance));

        /// <summary>The databases the Databases object lists (not <c>_Total</c>), in the order their series were created.</summary>
        public IEnumerable<string> DatabaseNames => _series.Values.Where(c => c.ObjectName == DatabasesObject && !c.IsInstanceTotal).Select(c => c.CounterInstance);

        protected override void ApplyRow(SignalBatch<CounterRow> batch, in CounterRow row, SignalOutcome outcome)
        {
            var key = (row.ObjectName, row.CounterName, row.CounterInstance);
            var created = false;
            if (!_series.TryGetValue(key, out var s) || s.CounterType != row.CounterType)
            {
                if (!IsSelected(row.CounterName))
                {
                    return;
                }

                s = NewSeries(Kind(row), row.CounterInstance);
                Add(key, s);
                created = true;
            }

            // Refreshed even when the reading is refused: one impossible value does not retire the database's series.
            s.Stamp = Stamp;
            if (s.Apply(row, batch.TimestampUtc, instance) is var verdict and not ReadingVerdict.Accepted)
            {
                if (created)
                {
                    Remove(key);
                }

                outcome.Reject(instance, new RejectedReading(instance.Name, "performance counter", row.CounterName, row.CounterInstance, row.Value, verdict));
            }
        }

        protected override void EndPoll(int keep, SignalBatch<CounterRow> batch, SignalOutcome outcome)
        {
            instance.ForgetNameIndex();
            Retire(keep);
            CrossCheck(keep, ref outcome.Agreement);
            instance.ForgetNameIndex(); // the look-ups by name are this poll's: no memory held between polls
        }

        public override void Read(MeasurementBuffers into)
        {
            for (var i = 0; i < _groups.Length; i++)
            {
                if (_groups[i] is not { } group)
                {
                    continue;
                }

                var family = CounterFamilies[i].Family;
                foreach (var s in group)
                {
                    if (s.HasValue)
                    {
                        if (family.IsInteger)
                        {
                            into.Add(family, s.LongValue, s.Tags);
                        }
                        else
                        {
                            into.Add(family, s.Value, s.Tags);
                        }
                    }
                }
            }

            foreach (var s in _lossSeries)
            {
                if (s.LossRatio is { } ratio)
                {
                    into.Add(EventLoss, ratio, s.Tags);
                }
            }
        }

        /// <summary>
        /// The increases of Log Flushes/sec, Log Bytes Flushed/sec and Log Flush Wait Time in this poll over exactly the
        /// databases the event session watches, against the events: never <c>_Total</c> (it includes the engine's hidden
        /// databases), and master, model and msdb only once events of theirs arrived (the session leaves them out unless an
        /// include list names them, while their counters are polled like any database's: on a real idle server they flush
        /// ten times more than tempdb). What _Total counted beyond every listed database goes along for an instance-wide
        /// histogram target, which may count hidden databases.
        /// </summary>
        private void CrossCheck(int keep, ref List<AgreementReport>? reports)
        {
            if (!instance.HasEventSource)
            {
                return; // no event source (or none yet): nothing to compare the counters with
            }

            long flushes = 0, bytes = 0, waitMs = 0, listedFlushes = 0, listedBytes = 0;
            long? totalFlushes = null, totalBytes = null;
            foreach (var s in _series.Values)
            {
                if (s.Stamp != keep || s.ObjectName != DatabasesObject)
                {
                    continue;
                }

                if (s.IsInstanceTotal)
                {
                    totalFlushes = s.CounterName == DatabasesCounters.LogFlushes ? s.Tracker.LastIncrease : totalFlushes;
                    totalBytes = s.CounterName == DatabasesCounters.LogBytesFlushed ? s.Tracker.LastIncrease : totalBytes;
                    continue;
                }

                listedFlushes += s.CounterName == DatabasesCounters.LogFlushes ? s.Tracker.LastIncrease : 0;
                listedBytes += s.CounterName == DatabasesCounters.LogBytesFlushed ? s.Tracker.LastIncrease : 0;
                if (DatabaseFilter.IsOutsideDefaultSession(s.CounterInstance) && instance.DatabaseByName(s.CounterInstance) is null)
                {
                    continue; // no event of it ever arrived: the session does not watch it
                }

                switch (s.CounterName)
                {
                    case DatabasesCounters.LogFlushes:
                        flushes += s.Tracker.LastIncrease;
                        break;
                    case DatabasesCounters.LogBytesFlushed:
                        bytes += s.Tracker.LastIncrease;
                        break;
                    case DatabasesCounters.LogFlushWaitTime:
                        waitMs += s.Tracker.LastIncrease;
                        break;
                }
            }

            long lost = 0;
            for (var k = 0; k < instance.Lost.Length; k++)
            {
                lost += k == (int)Samples.LossKind.Malformed ? 0 : instance.Lost[k];
            }

            instance.Agreement.OnCounters(flushes, bytes, waitMs, lost, ref reports,
                totalFlushes is { } f ? f - listedFlushes : 0, totalBytes is { } b ? b - listedBytes : 0);
        }

        /// <summary>Removes counters the poll did not refresh; a database whose counters vanished was dropped or taken offline.</summary>
        private void Retire(int keep)
        {
            List<string>? goneDatabases = null;
            foreach (var (key, s) in _series)
            {
                if (s.Stamp != keep)
                {
                    Remove(key);
                    if (s.ObjectName == DatabasesObject)
                    {
                        (goneDatabases ??= []).Add(s.CounterInstance);
                    }
                }
            }

            // Its event series go with it.
            foreach (var name in goneDatabases ?? [])
            {
                instance.RemoveDatabase(name);
            }
        }

        /// <summary>A new series of <paramref name="kind"/>: <c>_Total</c> with the instance's tags, a database with its shared tags.</summary>
        private CounterSeries NewSeries(CounterKind kind, string counterInstance)
        {
            if (kind.IsInstanceTotal)
            {
                _ = MetricAttributes.Limit(instance.Name); // counted as a name made an attribute of a new series, as each series' own tags were
                return new CounterSeries(kind, counterInstance, instance.Tags);
            }

            return new CounterSeries(kind, counterInstance, instance.AcquireDatabaseTags(counterInstance));
        }

        /// <summary>Keeps <paramref name="series"/> (replacing any series of the same key) in the group of the family it feeds.</summary>
        private void Add((string Object, string Counter, string Instance) key, CounterSeries series)
        {
            if (_series.Remove(key, out var old))
            {
                Ungroup(old);
            }

            _series[key] = series;
            if (series.FamilyIndex is { } family)
            {
                (_groups[family] ??= []).Add(series);
            }

            if (series.TracksEventLoss)
            {
                _lossSeries.Add(series);
            }
        }

        /// <summary>Forgets a counter series and takes it out of its group.</summary>
        private void Remove((string Object, string Counter, string Instance) key)
        {
            if (_series.Remove(key, out var old))
            {
                Ungroup(old);
            }
        }

        private void Ungroup(CounterSeries series)
        {
            if (!series.IsInstanceTotal)
            {
                instance.ReleaseDatabaseTags(series.CounterInstance);
            }

            if (series.FamilyIndex is { } family)
            {
                _groups[family]?.Remove(series);
            }

            if (series.TracksEventLoss)
            {
                _lossSeries.Remove(series);
            }
        }

        /// <summary>What every series of the row's counter shares, made once per counter (a bounded set, as names are).</summary>
        private CounterKind Kind(in CounterRow row)
        {
            var key = (row.ObjectName, row.CounterName, row.CounterType, Total: row.CounterInstance == DatabasesCounters.TotalInstance);
            if (!_kinds.TryGetValue(key, out var kind))
            {
                kind = new CounterKind(key.ObjectName, key.CounterName, key.CounterType, key.Total);
                if (_kinds.Count < 4096)
                {
                    _kinds[key] = kind;
                }
            }

            return kind;
        }

        /// <summary>Whether a counter is selected, remembered per name.</summary>
        private bool IsSelected(string counterName)
        {
            if (!_selected.TryGetValue(counterName, out var selected))
            {
                selected = instance.CounterSelection.Matches(counterName);
                if (_selected.Count < 4096)
                {
                    _selected[counterName] = selected;
                }
            }

            return selected;
        }
    }
}

/// <summary>A counter family and the counters it reads.</summary>
/// <param name="Family">The family.</param>
/// <param name="Source">The counters it takes.</param>
internal sealed record CounterFamily(MetricDefinition Family, CounterFamilySource Source);

/// <summary>Which counters a family takes.</summary>
internal abstract record CounterFamilySource;

/// <summary>
/// One counter of the Databases object (or Database Replica), chosen by name when it has the type it is documented with:
/// cumulative (BULK_COUNT or its 32-bit twin) or a point value (LARGE_RAWCOUNT, RAWCOUNT). Any other type of that name is
/// exported as one of the other counters (<see cref="OtherCountersSource"/>).
/// </summary>
/// <param name="Counter">The counter name (<see cref="DatabasesCounters"/>).</param>
/// <param name="Cumulative">True for a cumulative counter, false for a point value.</param>
/// <param name="Scope">The databases' series or the instance's <c>_Total</c>.</param>
/// <param name="Scale">From the counter's unit to the family's.</param>
/// <param name="Object">The counter's object after the colon: the Databases object, or Database Replica.</param>
internal sealed record CounterSource(string Counter, bool Cumulative, CounterScope Scope, UnitScale Scale, string Object = DatabasesCounters.Object) : CounterFamilySource;

/// <summary>Every counter of the Databases object no <see cref="CounterSource"/> claims, by the arithmetic of its type.</summary>
/// <param name="Arithmetic">The counter types the family takes.</param>
/// <param name="Scope">The databases' series or the instance's <c>_Total</c>.</param>
internal sealed record OtherCountersSource(CounterArithmetic Arithmetic, CounterScope Scope) : CounterFamilySource;

/// <summary>The counter line's contract.</summary>
[JsonSerializable(typeof(CounterRow))]
internal sealed partial class CounterJson : JsonSerializerContext;

using System.Data.Common;
using System.Globalization;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// One database's log as <c>sys.dm_db_log_stats</c> describes it (SQL Server 2016 SP2 and later, Azure), or before that
/// <c>sys.databases.log_reuse_wait_desc</c> with the Databases counters' log sizes. Sizes in bytes (the DMV's MB and the
/// counters' KB converted by the statement). What the server left NULL is null: on an availability-group secondary the DMV
/// gives only database_id, recovery_model and log_backup_time (Microsoft docs of the DMV); the older statement has no VLF
/// counts, log since backup or checkpoint, or log backup time.
/// </summary>
/// <param name="DatabaseId">database_id.</param>
/// <param name="DatabaseName">The database name (sys.databases.name, DB_NAME() on Azure SQL Database).</param>
/// <param name="RecoveryModel">recovery_model (SIMPLE, BULK_LOGGED, FULL).</param>
/// <param name="Reason">log_truncation_holdup_reason (log_reuse_wait_desc before 2016 SP2), as the server wrote it.</param>
/// <param name="TotalBytes">total_log_size_mb in bytes (Log File(s) Size (KB) before 2016 SP2).</param>
/// <param name="ActiveBytes">active_log_size_mb in bytes (Log File(s) Used Size (KB) before 2016 SP2): the log that cannot be reused.</param>
/// <param name="Vlfs">total_vlf_count.</param>
/// <param name="ActiveVlfs">active_vlf_count.</param>
/// <param name="SinceLogBackupBytes">log_since_last_log_backup_mb in bytes.</param>
/// <param name="SinceCheckpointBytes">log_since_last_checkpoint_mb in bytes.</param>
/// <param name="LogBackupAgeSeconds">Seconds from log_backup_time to the server's clock at the poll; null when the log was never backed up (the DMV's 1900-01-01).</param>
public readonly record struct LogSpaceRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db"), JsonRequired] string DatabaseName,
    [property: JsonPropertyName("recovery_model")] string? RecoveryModel,
    [property: JsonPropertyName("reason")] string? Reason,
    [property: JsonPropertyName("total_bytes")] long? TotalBytes,
    [property: JsonPropertyName("active_bytes")] long? ActiveBytes,
    [property: JsonPropertyName("vlfs")] long? Vlfs,
    [property: JsonPropertyName("active_vlfs")] long? ActiveVlfs,
    [property: JsonPropertyName("since_log_backup_bytes")] long? SinceLogBackupBytes,
    [property: JsonPropertyName("since_checkpoint_bytes")] long? SinceCheckpointBytes,
    [property: JsonPropertyName("log_backup_age_s")] long? LogBackupAgeSeconds);

/// <summary>
/// Why each database's log cannot be reused and when it will be full: the truncation holdup reason (a bounded attribute,
/// <see cref="LogReuseWaits"/>) and how long the monitor has seen it, the active log, VLF counts, the log written since the
/// last log backup and checkpoint, the age of the last log backup, the growth of the active log over
/// <see cref="LogGrowthWindow.Window"/>, and from it and the log's headroom (<see cref="LogFilesSignal"/>) the time until the
/// log is full (docs/sqlserver.md, "The log's space").
/// </summary>
public sealed class LogSpaceSignal : Signal<LogSpaceRow>
{
    /// <summary>A log with this many VLFs or more is worth a word (sp_Blitz check 69 warns from 1,000).</summary>
    public const long ManyVlfs = 1000;

    /// <summary>
    /// SQL Server 2016 SP2 and later: every online database (not a snapshot, which has no log of its own) with its row of
    /// <c>sys.dm_db_log_stats</c> (a per-database function, applied to each database of <c>sys.databases</c>). The DMV's MB
    /// (float) become bytes here; the log backup's age is taken on the server's clock (log_backup_time is server-local
    /// datetime, a belief docs/sqlserver.md names), and a log never backed up (1900-01-01, which Ola Hallengren's
    /// DatabaseBackup also reads as "never") has none. Needs VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE).
    /// </summary>
    public static readonly SignalStatement LogStatsStatement = new("log_space", """
        SELECT d.database_id AS DatabaseId, d.name AS DatabaseName, ls.recovery_model AS RecoveryModel,
               ls.log_truncation_holdup_reason AS Reason,
               CAST(ls.total_log_size_mb * 1048576 AS bigint) AS TotalBytes, CAST(ls.active_log_size_mb * 1048576 AS bigint) AS ActiveBytes,
               ls.total_vlf_count AS Vlfs, ls.active_vlf_count AS ActiveVlfs,
               CAST(ls.log_since_last_log_backup_mb * 1048576 AS bigint) AS SinceLogBackupBytes,
               CAST(ls.log_since_last_checkpoint_mb * 1048576 AS bigint) AS SinceCheckpointBytes,
               CASE WHEN ls.log_backup_time > '20000101' THEN CAST(DATEDIFF(SECOND, ls.log_backup_time, GETDATE()) AS bigint) END AS LogBackupAgeSeconds
        FROM sys.databases AS d
        CROSS APPLY sys.dm_db_log_stats(d.database_id) AS ls
        WHERE d.state = 0 AND d.source_database_id IS NULL
        """, "sys.dm_db_log_stats");

    /// <summary>
    /// Before SQL Server 2016 SP2 (no sys.dm_db_log_stats): the reason from <c>sys.databases.log_reuse_wait_desc</c>, the log's
    /// size and use from the Databases counters (<c>Log File(s) Size (KB)</c>, <c>Log File(s) Used Size (KB)</c>, an
    /// nchar(128) instance_name compared without its trailing blanks). <c>sys.dm_db_log_space_usage</c> answers for the
    /// current database only, so it cannot stand in for all of them without a connection to each.
    /// </summary>
    public static readonly SignalStatement ReuseWaitStatement = new("log_space", """
        SELECT d.database_id AS DatabaseId, d.name AS DatabaseName, d.recovery_model_desc AS RecoveryModel,
               d.log_reuse_wait_desc AS Reason,
               CAST(size.cntr_value AS bigint) * 1024 AS TotalBytes, CAST(used.cntr_value AS bigint) * 1024 AS ActiveBytes,
               CAST(NULL AS bigint) AS Vlfs, CAST(NULL AS bigint) AS ActiveVlfs,
               CAST(NULL AS bigint) AS SinceLogBackupBytes, CAST(NULL AS bigint) AS SinceCheckpointBytes,
               CAST(NULL AS bigint) AS LogBackupAgeSeconds
        FROM sys.databases AS d
        LEFT JOIN sys.dm_os_performance_counters AS size
            ON size.object_name LIKE N'%:Databases%' AND size.counter_name = N'Log File(s) Size (KB)' AND size.instance_name = d.name
        LEFT JOIN sys.dm_os_performance_counters AS used
            ON used.object_name LIKE N'%:Databases%' AND used.counter_name = N'Log File(s) Used Size (KB)' AND used.instance_name = d.name
        WHERE d.state = 0 AND d.source_database_id IS NULL
        """, "sys.databases");

    /// <summary>Azure SQL Database: this database's row of <c>sys.dm_db_log_stats</c> (only the current database is visible there). Needs VIEW DATABASE STATE.</summary>
    public static readonly SignalStatement AzureStatement = new("log_space", """
        SELECT ls.database_id AS DatabaseId, DB_NAME() AS DatabaseName, ls.recovery_model AS RecoveryModel,
               ls.log_truncation_holdup_reason AS Reason,
               CAST(ls.total_log_size_mb * 1048576 AS bigint) AS TotalBytes, CAST(ls.active_log_size_mb * 1048576 AS bigint) AS ActiveBytes,
               ls.total_vlf_count AS Vlfs, ls.active_vlf_count AS ActiveVlfs,
               CAST(ls.log_since_last_log_backup_mb * 1048576 AS bigint) AS SinceLogBackupBytes,
               CAST(ls.log_since_last_checkpoint_mb * 1048576 AS bigint) AS SinceCheckpointBytes,
               CASE WHEN ls.log_backup_time > '20000101' THEN CAST(DATEDIFF(SECOND, ls.log_backup_time, GETDATE()) AS bigint) END AS LogBackupAgeSeconds
        FROM sys.dm_db_log_stats(DB_ID()) AS ls
        """, "sys.dm_db_log_stats");

    private static readonly string[] InstDb = [Instance, Database];
    private static readonly string[] InstDbReason = [Instance, Database, LogReuseWait];

    internal static readonly MetricDefinition ReasonDuration = new()
    {
        Name = "sqlserver.log.reuse_wait.duration", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDbReason, Section = MetricSection.LogSpace,
        Description = "Why the log cannot be reused (log_truncation_holdup_reason, log_reuse_wait_desc before 2016 SP2) as the attribute, and for how long the monitor has seen that reason, seconds.",
        Meaning = "why the log cannot be truncated and reused: `log_truncation_holdup_reason` of `sys.dm_db_log_stats` (`log_reuse_wait_desc` of `sys.databases` before SQL Server 2016 SP2) as the attribute, one of the documented values (an unknown one is `OTHER`), and as the value how long the polls have seen that reason without a break, seconds (0 at the poll that first sees it; the monitor's own observation: a reason older than the monitor counts from its first poll). One series per database; none on an availability-group secondary (the DMV leaves it NULL there). `LOG_BACKUP` is normal in the full recovery model between log backups: read it with `sqlserver_log_backup_age_seconds`",
        PromQL = "`sqlserver_log_reuse_wait_duration_seconds{log_reuse_wait!~\"NOTHING|CHECKPOINT|LOG_BACKUP\"} > 3600`",
    };

    internal static readonly MetricDefinition Active = new()
    {
        Name = "sqlserver.log.active.size", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "The active log: the part that cannot be reused (active_log_size_mb; Log File(s) Used Size (KB) before 2016 SP2), bytes.",
        Meaning = "the active log, the part that cannot be reused until its reason clears: `active_log_size_mb` (`Log File(s) Used Size (KB)` before SQL Server 2016 SP2), in bytes. The log is full when this reaches the headroom",
        PromQL = "`sqlserver_log_active_size_bytes / sqlserver_log_headroom_bytes`",
    };

    internal static readonly MetricDefinition Vlfs = new()
    {
        Name = "sqlserver.log.vlfs", Unit = "{vlf}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "Virtual log files in the log (total_vlf_count; SQL Server 2016 SP2 and later).",
        Meaning = "virtual log files (`total_vlf_count`), 2016 SP2 and later. Thousands slow startup, restores and failovers (sp_Blitz warns from 1,000): advice, not a page",
        PromQL = "`sqlserver_log_vlfs >= 1000`",
    };

    internal static readonly MetricDefinition ActiveVlfsFamily = new()
    {
        Name = "sqlserver.log.vlfs.active", Unit = "{vlf}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "Active virtual log files (active_vlf_count; SQL Server 2016 SP2 and later).",
        Meaning = "active virtual log files (`active_vlf_count`)",
        PromQL = "`sqlserver_log_vlfs_active / sqlserver_log_vlfs`",
    };

    internal static readonly MetricDefinition SinceBackup = new()
    {
        Name = "sqlserver.log.since_backup.size", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "Log written since the last log backup (log_since_last_log_backup_mb), bytes.",
        Meaning = "log written since the last log backup (`log_since_last_log_backup_mb`, in bytes): what the next log backup will hold",
        PromQL = "`sqlserver_log_since_backup_size_bytes`",
    };

    internal static readonly MetricDefinition SinceCheckpoint = new()
    {
        Name = "sqlserver.log.since_checkpoint.size", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "Log written since the last checkpoint (log_since_last_checkpoint_mb), bytes.",
        Meaning = "log written since the last checkpoint (`log_since_last_checkpoint_mb`, in bytes)",
        PromQL = "`sqlserver_log_since_checkpoint_size_bytes`",
    };

    internal static readonly MetricDefinition BackupAge = new()
    {
        Name = "sqlserver.log.backup.age", Unit = "s", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "Seconds since the last log backup (log_backup_time to the server's clock at the poll); no series when the log was never backed up.",
        Meaning = "seconds from the last log backup's time (`log_backup_time`, its start) to the server's clock at the poll; no series for a log never backed up (the DMV's 1900-01-01) or before 2016 SP2",
        PromQL = "`sqlserver_log_backup_age_seconds > 3600`",
    };

    internal static readonly MetricDefinition GrowthRate = new()
    {
        Name = "sqlserver.log.growth.rate", Unit = "By/s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "How fast the active log grows: the least-squares slope of its size over the last 10 minutes since it last fell, bytes per second.",
        Meaning = "how fast the active log grows: the least-squares slope of `sqlserver.log.active.size` over the last 10 minutes of polls, counting only the polls since it last fell (a truncation starts the window again); no series until the readings span a minute",
        PromQL = "`sqlserver_log_growth_rate_bytes_per_second > 0`",
    };

    internal static readonly MetricDefinition TimeToFull = new()
    {
        Name = "sqlserver.log.time_to_full", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDbReason, Section = MetricSection.LogSpace,
        Description = "Seconds until the log is full at its present growth: (headroom - active log) / growth rate, with the reason the log cannot be reused; no series while the active log is not growing or the headroom is not known.",
        Meaning = "seconds until the log is full if it keeps growing as over the window: (`sqlserver.log.headroom` - `sqlserver.log.active.size`) / `sqlserver.log.growth.rate`, 0 once full, with the reason it cannot be reused as the attribute; no series while the active log is not growing, or without the headroom (no rows of `sys.master_files`: VIEW ANY DEFINITION). [alerts.md](alerts.md#sqlserverlogfullsoon) pages under 30 minutes",
        PromQL = "`sqlserver_log_time_to_full_seconds < 1800`",
    };

    internal LogSpaceSignal()
        : base("log_space")
    {
        Recording = new SignalRecording<LogSpaceRow>(this, "log_space", "log_space", LogSpaceJson.Default.LogSpaceRow,
            r => r.DatabaseName is null ? "invalid field 'db': expected a string"
                : !DatabaseIds.IsValid(r.DatabaseId) ? $"invalid field 'db_id': {r.DatabaseId} is not a database id (0 to {DatabaseIds.Max})"
                : null);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [ReasonDuration, Active, Vlfs, ActiveVlfsFamily, SinceBackup, SinceCheckpoint, BackupAge, GrowthRate, TimeToFull];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => [StatementFor(server)];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => HasLogStats(server)
        ? "sys.dm_db_log_stats (why the log cannot be reused, its active size, VLFs, the last log backup)"
        : "sys.databases.log_reuse_wait_desc with the Log File(s) counters (before SQL Server 2016 SP2: no VLF counts, no log backup time)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, StatementFor(server));

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    /// <inheritdoc />
    public override IReadOnlyList<string> CheckAdvice(IReadOnlyList<SignalBatch> batches)
    {
        ArgumentNullException.ThrowIfNull(batches);
        var last = new Dictionary<string, LogSpaceRow>(StringComparer.Ordinal);
        foreach (var batch in batches.OfType<SignalBatch<LogSpaceRow>>())
        {
            foreach (var row in batch.Rows)
            {
                last[row.DatabaseName] = row;
            }
        }

        return [.. last.OrderBy(r => r.Key, StringComparer.Ordinal).Select(r => VlfAdvice(r.Value.Vlfs) is { } advice ? $"{r.Key}: {advice}" : null).OfType<string>()];
    }

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>
    /// Whether the server has sys.dm_db_log_stats: SQL Server 2016 SP2 (13.0.5026) and later, Azure SQL Database and Managed
    /// Instance (Microsoft docs of the DMV). An unknown version takes the newer statement.
    /// </summary>
    public static bool HasLogStats(ServerProfile server) =>
        server.AzureSqlDatabase || server.MajorVersion is 0 or > 13 || (server.MajorVersion == 13 && server.Build is 0 or >= 5026);

    /// <summary>What the number of VLFs deserves a word about, or null (fewer than <see cref="ManyVlfs"/>).</summary>
    public static string? VlfAdvice(long? vlfs) => vlfs is >= ManyVlfs and var n
        ? string.Create(CultureInfo.InvariantCulture, $"{n:N0} VLFs in the log: startup, restores and failovers read them all; shrink the log in a quiet moment and grow it again in a few large steps (sp_Blitz warns from 1,000)")
        : null;

    /// <summary>A span as a person reads it: "45 s", "35 min", "2 h 10 min", "3 days".</summary>
    public static string Duration(double seconds)
    {
        var s = Math.Max(0, seconds);
        return s switch
        {
            < 90 => string.Create(CultureInfo.InvariantCulture, $"{s:0} s"),
            < 3600 => string.Create(CultureInfo.InvariantCulture, $"{Math.Round(s / 60):0} min"),
            < 48 * 3600 => string.Create(CultureInfo.InvariantCulture, $"{Math.Floor(s / 3600):0} h {Math.Floor(s % 3600 / 60):0} min"),
            _ => string.Create(CultureInfo.InvariantCulture, $"{Math.Floor(s / 86400):0} days"),
        };
    }

    /// <summary>Seconds until <paramref name="usedBytes"/> reaches <paramref name="headroomBytes"/> at <paramref name="bytesPerSecond"/>, or null when not growing.</summary>
    public static double? SecondsToFull(long usedBytes, long headroomBytes, double? bytesPerSecond) =>
        bytesPerSecond is > 0 and var rate ? Math.Max(0, headroomBytes - usedBytes) / rate : null;

    private static SignalStatement StatementFor(ServerProfile server) =>
        server.AzureSqlDatabase ? AzureStatement : HasLogStats(server) ? LogStatsStatement : ReuseWaitStatement;

    private static long? NonNegative(long? value) => value is { } v ? Math.Max(0, v) : null;

    /// <summary>Each database's log over the recording: its reason, how its active log grew and, with the log files' rows, when it would be full.</summary>
    private sealed class View(string signal) : SignalView<LogSpaceRow>, ILogSpaceView
    {
        private readonly Dictionary<(string Instance, string Database), Tracked> _databases = [];
        private readonly Dictionary<(string Instance, string Database, int File), LogFileRow> _files = [];

        public override bool AlsoReads(Signal other) => other is LogFilesSignal;

        public override void ObserveOther(SignalBatch batch)
        {
            if (batch is SignalBatch<LogFileRow> files)
            {
                foreach (var f in files.Rows)
                {
                    _files[(batch.Instance, f.DatabaseName, f.FileId)] = f;
                }
            }
        }

        protected override void Observe(string instance, DateTime timestampUtc, in LogSpaceRow row)
        {
            var key = (instance, row.DatabaseName);
            if (!_databases.TryGetValue(key, out var t))
            {
                _databases[key] = t = new Tracked { FirstActive = row.ActiveBytes };
            }

            var reason = row.Reason is null ? null : LogReuseWaits.Bounded(row.Reason);
            if (reason != t.Reason)
            {
                t.Changes += t.Polls > 0 ? 1 : 0;
                t.Reason = reason;
                t.Since = timestampUtc;
            }

            t.Polls++;
            t.Last = row;
            t.LastUtc = timestampUtc;
            if (row.Vlfs is { } vlfs)
            {
                t.MostVlfs = Math.Max(t.MostVlfs ?? 0, vlfs);
            }

            if (row.ActiveBytes is { } active)
            {
                t.Window.Add(timestampUtc, active);
            }
        }

        public LogSpaceSnapshot? Snapshot(string instance, string database)
        {
            if (!_databases.TryGetValue((instance, database), out var t))
            {
                return null;
            }

            var files = Files(instance, database);
            LogRoom? room = files.Count > 0 ? LogFilesSignal.Room(files) : null;
            var rate = t.Window.BytesPerSecond;
            return new LogSpaceSnapshot(t.Last.RecoveryModel, t.Reason, t.Reason is null ? null : (t.LastUtc - t.Since).TotalSeconds, t.Last.ActiveBytes,
                t.Last.TotalBytes, t.Last.Vlfs, t.Last.LogBackupAgeSeconds, rate, room,
                room is { } r && t.Last.ActiveBytes is { } used ? SecondsToFull(used, r.HeadroomBytes, rate) : null, files);
        }

        private List<LogFileRow> Files(string instance, string database) =>
            [.. _files.Where(f => f.Key.Instance == instance && f.Key.Database == database).OrderBy(f => f.Key.File).Select(f => f.Value)];

        public override SignalTable? Table()
        {
            if (_databases.Count == 0)
            {
                return null;
            }

            var rows = new List<IReadOnlyList<object?>>();
            var notes = new List<string>
            {
                "The reason is the last poll's; 'held' is how long the polls saw it without a break. The growth rate is the least-squares slope of the active log over the last 10 minutes of polls since it last fell; the time to full is the room left under the headroom (from the log files' rows) at that rate, as of the last poll.",
            };
            foreach (var ((instance, database), t) in _databases.OrderBy(d => d.Key.Instance, StringComparer.Ordinal).ThenBy(d => d.Key.Database, StringComparer.Ordinal))
            {
                var files = Files(instance, database);
                LogRoom? room = files.Count > 0 ? LogFilesSignal.Room(files) : null;
                var rate = t.Window.BytesPerSecond;
                var toFull = room is { } r && t.Last.ActiveBytes is { } used ? SecondsToFull(used, r.HeadroomBytes, rate) : null;
                rows.Add([
                    instance, database, t.Last.RecoveryModel, t.Reason, t.Reason is null ? null : (t.LastUtc - t.Since).TotalSeconds, (long)t.Changes,
                    t.FirstActive, t.Last.ActiveBytes, rate, room?.HeadroomBytes, toFull, t.MostVlfs, t.Last.LogBackupAgeSeconds]);
                if (VlfAdvice(t.MostVlfs) is { } advice)
                {
                    notes.Add($"{instance}/{database}: {advice}.");
                }
            }

            return new SignalTable(signal, "The log's space: why it cannot be reused, when it will be full (sys.dm_db_log_stats)",
                [new("instance"), new("database"), new("recovery model"), new("reason"), new("held", "s"), new("reason changes"), new("active log first", "B"),
                    new("active log last", "B"), new("growth", "B/s"), new("headroom", "B"), new("time to full", "s"), new("most VLFs"), new("log backup age", "s")],
                rows, notes);
        }

        private sealed class Tracked
        {
            public LogGrowthWindow Window { get; } = new();

            public LogSpaceRow Last { get; set; }

            public DateTime LastUtc { get; set; }

            public string? Reason { get; set; }

            public DateTime Since { get; set; }

            public int Changes { get; set; }

            public long Polls { get; set; }

            public long? FirstActive { get; init; }

            public long? MostVlfs { get; set; }
        }
    }

    /// <summary>Reads the statement of this server and keeps the watched databases.</summary>
    private sealed class Poller(LogSpaceSignal signal, PollContext context, SignalStatement statement) : SignalPoller(context)
    {
        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await SqlRows.ReadAsync(connection, Context, statement, c => new LogSpaceRow(
                c.Int32("DatabaseId"), c.String("DatabaseName"), c.StringOrNull("RecoveryModel"), c.StringOrNull("Reason"),
                NonNegative(c.Int64OrNull("TotalBytes")), NonNegative(c.Int64OrNull("ActiveBytes")), NonNegative(c.Int64OrNull("Vlfs")),
                NonNegative(c.Int64OrNull("ActiveVlfs")), NonNegative(c.Int64OrNull("SinceLogBackupBytes")), NonNegative(c.Int64OrNull("SinceCheckpointBytes")),
                // A clock step between the backup and the poll can make the age negative.
                NonNegative(c.Int64OrNull("LogBackupAgeSeconds"))), cancellationToken).ConfigureAwait(false);
            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. rows.Where(r => Context.Filter.Watches(r.DatabaseName))], endsPoll: true));
        }
    }

    /// <summary>Each database's log as the last poll saw it, with its reason's start and its growth window; those the poll no longer lists are retired.</summary>
    internal sealed class State(InstanceState instance) : PolledState<LogSpaceRow>
    {
        private readonly Dictionary<int, LogSpaceSeries> _series = [];
        private readonly Dictionary<string, LogSpaceSeries> _byName = new(StringComparer.Ordinal);

        /// <summary>The databases the last poll listed.</summary>
        public IEnumerable<string> DatabaseNames => _byName.Keys;

        /// <summary>What is known of <paramref name="database"/>'s log now, with its room from the log files' state; null when not polled.</summary>
        public LogSpaceSnapshot? Snapshot(string database)
        {
            if (!_byName.TryGetValue(database, out var s))
            {
                return null;
            }

            var room = Room(database);
            var rate = s.Window.BytesPerSecond;
            var files = instance.Find<LogFilesSignal.State>(SignalRegistry.LogFiles)?.Files(database).ToList() ?? [];
            return new LogSpaceSnapshot(s.Row.RecoveryModel, s.Reason, s.Reason is null ? null : (s.LastUtc - s.ReasonSinceUtc).TotalSeconds,
                s.Row.ActiveBytes, s.Row.TotalBytes, s.Row.Vlfs, s.Row.LogBackupAgeSeconds, rate, room,
                room is { } r && s.Row.ActiveBytes is { } used ? SecondsToFull(used, r.HeadroomBytes, rate) : null, files);
        }

        protected override void ApplyRow(SignalBatch<LogSpaceRow> batch, in LogSpaceRow row, SignalOutcome outcome)
        {
            instance.LearnName(row.DatabaseId, row.DatabaseName);
            if (!_series.TryGetValue(row.DatabaseId, out var s) || s.DatabaseName != row.DatabaseName)
            {
                Remove(row.DatabaseId);
                s = new LogSpaceSeries(instance.Name, row.DatabaseName, instance.AcquireDatabaseTags(row.DatabaseName));
                _series[row.DatabaseId] = s;
                _byName[row.DatabaseName] = s;
            }

            s.Stamp = Stamp;
            s.Row = row;
            s.LastUtc = batch.TimestampUtc;
            s.SetReason(row.Reason is null ? null : LogReuseWaits.Bounded(row.Reason), batch.TimestampUtc);
            if (row.ActiveBytes is { } active)
            {
                s.Window.Add(batch.TimestampUtc, active);
            }
        }

        protected override void EndPoll(int keep, SignalBatch<LogSpaceRow> batch, SignalOutcome outcome)
        {
            foreach (var (id, s) in _series)
            {
                if (s.Stamp != keep)
                {
                    Remove(id);
                }
            }
        }

        public override void Read(MeasurementBuffers into)
        {
            foreach (var s in _series.Values)
            {
                var row = s.Row;
                if (s.ReasonTags is { } reasonTags)
                {
                    into.Add(ReasonDuration, Math.Max(0, (s.LastUtc - s.ReasonSinceUtc).TotalSeconds), reasonTags);
                }

                Add(into, Active, row.ActiveBytes, s.Tags);
                Add(into, Vlfs, row.Vlfs, s.Tags);
                Add(into, ActiveVlfsFamily, row.ActiveVlfs, s.Tags);
                Add(into, SinceBackup, row.SinceLogBackupBytes, s.Tags);
                Add(into, SinceCheckpoint, row.SinceCheckpointBytes, s.Tags);
                Add(into, BackupAge, row.LogBackupAgeSeconds, s.Tags);
                var rate = s.Window.BytesPerSecond;
                if (rate is { } r)
                {
                    into.Add(GrowthRate, r, s.Tags);
                }

                if (row.ActiveBytes is { } used && Room(s.DatabaseName) is { } room && SecondsToFull(used, room.HeadroomBytes, rate) is { } seconds)
                {
                    into.Add(TimeToFull, seconds, s.ReasonTags ?? s.UnknownReasonTags);
                }
            }
        }

        private static void Add(MeasurementBuffers into, MetricDefinition family, long? value, KeyValuePair<string, object?>[] tags)
        {
            if (value is { } v)
            {
                into.Add(family, v, tags);
            }
        }

        private LogRoom? Room(string database) => instance.Find<LogFilesSignal.State>(SignalRegistry.LogFiles)?.Room(database);

        private void Remove(int databaseId)
        {
            if (_series.Remove(databaseId, out var old))
            {
                instance.ReleaseDatabaseTags(old.DatabaseName);
                if (_byName.TryGetValue(old.DatabaseName, out var named) && ReferenceEquals(named, old))
                {
                    _byName.Remove(old.DatabaseName);
                }
            }
        }
    }

    /// <summary>One database's log: the last row, the reason and since when the polls have seen it, the growth window.</summary>
    private sealed class LogSpaceSeries : PolledSeries
    {
        private readonly string _instance;

        public LogSpaceSeries(string instance, string databaseName, KeyValuePair<string, object?>[] tags)
        {
            _instance = instance;
            DatabaseName = databaseName;
            Tags = tags;
        }

        public string DatabaseName { get; }

        public LogSpaceRow Row { get; set; }

        public DateTime LastUtc { get; set; }

        public string? Reason { get; private set; }

        public DateTime ReasonSinceUtc { get; private set; }

        /// <summary>Instance, database and the reason: made again only when the reason changes.</summary>
        public KeyValuePair<string, object?>[]? ReasonTags { get; private set; }

        /// <summary>The time to full's tags where the server gave no reason.</summary>
        public KeyValuePair<string, object?>[] UnknownReasonTags => _unknown ??= WithReason(LogReuseWaits.Unknown);

        public LogGrowthWindow Window { get; } = new();

        private KeyValuePair<string, object?>[]? _unknown;

        public void SetReason(string? reason, DateTime atUtc)
        {
            if (reason == Reason && (ReasonTags is not null || reason is null))
            {
                return;
            }

            Reason = reason;
            ReasonSinceUtc = atUtc;
            ReasonTags = reason is null ? null : WithReason(reason);
        }

        private KeyValuePair<string, object?>[] WithReason(string reason) =>
            [new(Instance, MetricAttributes.Limit(_instance)), new(Database, MetricAttributes.Limit(DatabaseName)), new(LogReuseWait, reason)];
    }
}

/// <summary>
/// The reasons SQL Server documents for a log that cannot be truncated (<c>log_reuse_wait_desc</c> of <c>sys.databases</c>,
/// the same values as <c>log_truncation_holdup_reason</c> of <c>sys.dm_db_log_stats</c>; Microsoft, "The Transaction Log",
/// "Factors that can delay log truncation"): the attribute's only values, so a server's text never becomes a series.
/// </summary>
public static class LogReuseWaits
{
    /// <summary>Nothing holds the log: there are reusable VLFs.</summary>
    public const string Nothing = "NOTHING";

    /// <summary>A log backup is needed first (full and bulk-logged recovery).</summary>
    public const string LogBackup = "LOG_BACKUP";

    /// <summary>A value the list does not have (a newer server, a damaged input): counted under one name.</summary>
    public const string Other = "OTHER";

    /// <summary>The time to full's reason when the server gave none.</summary>
    public const string Unknown = "UNKNOWN";

    /// <summary>
    /// The documented values. OTHER_TRANSIENT is spelled with a space in the DMV's page ("OTHER TRANSIENT") and is read
    /// either way; SLOG_SCAN (accelerated database recovery, SQL Server 2019) is a belief docs/sqlserver.md names.
    /// </summary>
    public static IReadOnlyList<string> Known { get; } =
    [
        Nothing, "CHECKPOINT", LogBackup, "ACTIVE_BACKUP_OR_RESTORE", "ACTIVE_TRANSACTION", "DATABASE_MIRRORING", "REPLICATION",
        "DATABASE_SNAPSHOT_CREATION", "LOG_SCAN", "AVAILABILITY_REPLICA", "OLDEST_PAGE", "OTHER_TRANSIENT", "XTP_CHECKPOINT", "SLOG_SCAN",
    ];

    /// <summary>Reasons that are routine and brief (a checkpoint due, a log scan), or none at all: no warning however long.</summary>
    public static IReadOnlyList<string> Routine { get; } = [Nothing, "CHECKPOINT", "LOG_SCAN", "DATABASE_SNAPSHOT_CREATION", "OTHER_TRANSIENT"];

    private static readonly Dictionary<string, string> ByText = Known.ToDictionary(k => k, k => k, StringComparer.OrdinalIgnoreCase);

    /// <summary>The documented value <paramref name="raw"/> names (trimmed, any case, a space for the underscore), else <see cref="Other"/>.</summary>
    public static string Bounded(string raw)
    {
        ArgumentNullException.ThrowIfNull(raw);
        var text = raw.Trim().Replace(' ', '_');
        return ByText.TryGetValue(text, out var known) ? known : Other;
    }
}

/// <summary>
/// The growth of a log's active size over a window: readings of the last <see cref="Window"/>, kept at most one per
/// <see cref="Window"/>/10 (and the latest), and only since the size last fell (a truncation, after which the old slope means
/// nothing). The rate is their least-squares slope, once they span <see cref="MinimumSpan"/>.
/// </summary>
public sealed class LogGrowthWindow
{
    /// <summary>How far back the readings go: 10 minutes.</summary>
    public static readonly TimeSpan Window = TimeSpan.FromMinutes(10);

    /// <summary>The shortest span a rate is taken over: one minute.</summary>
    public static readonly TimeSpan MinimumSpan = TimeSpan.FromMinutes(1);

    private const int Slots = 10;
    private readonly long[] _ticks = new long[Slots];
    private readonly long[] _bytes = new long[Slots];
    private int _count;
    private long _lastTicks;
    private long _lastBytes;
    private bool _hasLast;

    /// <summary>One reading of the active log's size.</summary>
    public void Add(DateTime atUtc, long bytes)
    {
        var t = atUtc.Ticks;
        if (_hasLast && (bytes < _lastBytes || t < _lastTicks))
        {
            _count = 0; // truncated (or the clock went back): the growth starts again from here
        }

        var drop = 0;
        while (drop < _count && t - _ticks[drop] > Window.Ticks)
        {
            drop++;
        }

        Shift(drop);
        if (_count == 0 || t - _ticks[_count - 1] >= Window.Ticks / Slots)
        {
            Shift(_count == Slots ? 1 : 0);
            _ticks[_count] = t;
            _bytes[_count] = bytes;
            _count++;
        }

        _lastTicks = t;
        _lastBytes = bytes;
        _hasLast = true;
    }

    /// <summary>Bytes per second over the window (the least-squares slope), or null before the readings span a minute.</summary>
    public double? BytesPerSecond
    {
        get
        {
            if (_count == 0)
            {
                return null;
            }

            var extra = _lastTicks > _ticks[_count - 1] ? 1 : 0;
            var n = _count + extra;
            var first = _ticks[0];
            if (n < 2 || _lastTicks - first < MinimumSpan.Ticks)
            {
                return null;
            }

            double sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (var i = 0; i < n; i++)
            {
                var x = ((i < _count ? _ticks[i] : _lastTicks) - first) / (double)TimeSpan.TicksPerSecond;
                double y = i < _count ? _bytes[i] : _lastBytes;
                sx += x;
                sy += y;
                sxx += x * x;
                sxy += x * y;
            }

            var d = (n * sxx) - (sx * sx);
            return d > 0 ? ((n * sxy) - (sx * sy)) / d : null;
        }
    }

    private void Shift(int by)
    {
        if (by <= 0)
        {
            return;
        }

        Array.Copy(_ticks, by, _ticks, 0, _count - by);
        Array.Copy(_bytes, by, _bytes, 0, _count - by);
        _count -= by;
    }
}

/// <summary>A view of the log's space that says, per database, what the recording showed of it at its last poll (for the advice of <c>analyze</c>).</summary>
public interface ILogSpaceView
{
    /// <summary>The log's space of <paramref name="database"/> on <paramref name="instance"/> at the last poll, or null when none was recorded.</summary>
    LogSpaceSnapshot? Snapshot(string instance, string database);
}

/// <summary>What is known of one database's log at a moment (a copy, safe on any thread).</summary>
/// <param name="RecoveryModel">SIMPLE, BULK_LOGGED or FULL.</param>
/// <param name="Reason">Why the log cannot be reused (<see cref="LogReuseWaits"/>), or null where the server gave none.</param>
/// <param name="ReasonSeconds">How long the polls have seen that reason.</param>
/// <param name="ActiveBytes">The active log.</param>
/// <param name="TotalBytes">The log's size.</param>
/// <param name="Vlfs">Its VLFs.</param>
/// <param name="LogBackupAgeSeconds">Seconds since the last log backup, null when never (or not known).</param>
/// <param name="GrowthBytesPerSecond">The active log's growth over the window.</param>
/// <param name="Room">The log's room from its files, when known.</param>
/// <param name="TimeToFullSeconds">Seconds until full at that growth, null when not growing or the room is not known.</param>
/// <param name="Files">The log files as the last poll listed them.</param>
public sealed record LogSpaceSnapshot(
    string? RecoveryModel, string? Reason, double? ReasonSeconds, long? ActiveBytes, long? TotalBytes, long? Vlfs, long? LogBackupAgeSeconds,
    double? GrowthBytesPerSecond, LogRoom? Room, double? TimeToFullSeconds, IReadOnlyList<LogFileRow> Files);

/// <summary>The log_space line's contract: a figure the server left NULL is absent, so a replay exports no value for it, as live does.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(LogSpaceRow))]
internal sealed partial class LogSpaceJson : JsonSerializerContext;

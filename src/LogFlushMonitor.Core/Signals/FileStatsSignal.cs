using System.Data.Common;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>One log file's row of <c>sys.dm_io_virtual_file_stats</c> (cumulative since the file opened).</summary>
/// <param name="DatabaseId">database_id.</param>
/// <param name="DatabaseName">DB_NAME(database_id).</param>
/// <param name="FileId">file_id.</param>
/// <param name="NumWrites">num_of_writes.</param>
/// <param name="BytesWritten">num_of_bytes_written.</param>
/// <param name="IoStallWriteMs">io_stall_write_ms.</param>
/// <param name="IoStallQueuedWriteMs">
/// io_stall_queued_write_ms: the part of the write stall that I/O resource governance queued the writes for (Azure's I/O
/// governance, or a resource pool's MAX_IOPS_PER_VOLUME); null in recordings made before it was read.
/// </param>
public readonly record struct FileStatsRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db"), JsonRequired] string DatabaseName,
    [property: JsonPropertyName("file_id"), JsonRequired] int FileId,
    [property: JsonPropertyName("num_of_writes"), JsonRequired] long NumWrites,
    [property: JsonPropertyName("num_of_bytes_written"), JsonRequired] long BytesWritten,
    [property: JsonPropertyName("io_stall_write_ms"), JsonRequired] long IoStallWriteMs,
    [property: JsonPropertyName("io_stall_queued_write_ms")] long? IoStallQueuedWriteMs = null);

/// <summary>
/// Log-file I/O from <c>sys.dm_io_virtual_file_stats</c> (the log files only): writes, bytes and write stall per
/// database, summed over its log files and exported restart-safe; the average log write latency is the stall's rate over
/// the writes'. The part of the stall I/O resource governance queued (<c>io_stall_queued_write_ms</c>, SQL Server 2014 and
/// later and Azure; Microsoft's page of the function) is the commit budget's I/O-governance part.
/// </summary>
public sealed class FileStatsSignal : Signal<FileStatsRow>
{
    /// <summary>I/O of each log file (type 1) of every database; the poll keeps the watched ones.</summary>
    public static readonly SignalStatement ServerStatement = new("log_file_stats", """
        SELECT vfs.database_id AS DatabaseId, DB_NAME(vfs.database_id) AS DatabaseName, CAST(vfs.file_id AS int) AS FileId,
               vfs.num_of_writes AS NumWrites, vfs.num_of_bytes_written AS BytesWritten, vfs.io_stall_write_ms AS IoStallWriteMs,
               vfs.io_stall_queued_write_ms AS IoStallQueuedWriteMs
        FROM sys.dm_io_virtual_file_stats(NULL, NULL) AS vfs
        JOIN sys.master_files AS mf ON mf.database_id = vfs.database_id AND mf.file_id = vfs.file_id
        WHERE mf.type = 1
        """, "sys.dm_io_virtual_file_stats");

    /// <summary>Azure SQL Database: this database's log file I/O (sys.master_files does not exist there).</summary>
    public static readonly SignalStatement AzureStatement = new("log_file_stats", """
        SELECT vfs.database_id AS DatabaseId, DB_NAME() AS DatabaseName, CAST(vfs.file_id AS int) AS FileId,
               vfs.num_of_writes AS NumWrites, vfs.num_of_bytes_written AS BytesWritten, vfs.io_stall_write_ms AS IoStallWriteMs,
               vfs.io_stall_queued_write_ms AS IoStallQueuedWriteMs
        FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS vfs
        JOIN sys.database_files AS df ON df.file_id = vfs.file_id
        WHERE df.type = 1
        """, "sys.dm_io_virtual_file_stats");

    private static readonly string[] InstDb = [Instance, Database];

    internal static readonly MetricDefinition Writes = new()
    {
        Name = "sqlserver.log.file.writes", Unit = "{write}", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDb, Section = MetricSection.FileStats,
        Description = "Writes to the database's log files (num_of_writes), increase since monitoring began.",
        Meaning = "writes to the log files (`num_of_writes`)",
        PromQL = "`rate(sqlserver_log_file_writes_total[1m])`",
    };

    internal static readonly MetricDefinition Bytes = new()
    {
        Name = "sqlserver.log.file.written.bytes", Unit = "By", Kind = MetricKind.Counter, IsInteger = true, Attributes = InstDb, Section = MetricSection.FileStats,
        Description = "Bytes written to the database's log files (num_of_bytes_written), increase since monitoring began.",
        Meaning = "bytes written (`num_of_bytes_written`)",
        PromQL = "average bytes per log write: `rate(sqlserver_log_file_written_bytes_total[5m]) / rate(sqlserver_log_file_writes_total[5m])`",
    };

    internal static readonly MetricDefinition Stall = new()
    {
        Name = "sqlserver.log.file.write.stall", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDb, Section = MetricSection.FileStats,
        Description = "Time spent waiting for writes to the database's log files (io_stall_write_ms); divide its rate by the writes' rate for the average write latency.",
        Meaning = "time waiting for log writes (`io_stall_write_ms`)",
        PromQL = "average log write latency: `rate(sqlserver_log_file_write_stall_seconds_total[5m]) / rate(sqlserver_log_file_writes_total[5m])` (over 0.010 s consistently is a bottleneck)",
    };

    internal static readonly MetricDefinition QueuedStall = new()
    {
        Name = "sqlserver.log.file.write.queued", Unit = "s", Kind = MetricKind.Counter, IsInteger = false, Attributes = InstDb, Section = MetricSection.FileStats,
        Description = "Time writes to the database's log files were queued by I/O resource governance before reaching storage (io_stall_queued_write_ms), increase since monitoring began.",
        Meaning = "time log writes were held in I/O resource governance's queue before reaching storage (`io_stall_queued_write_ms`; SQL Server 2014 and later, Azure SQL Database and Managed Instance). Azure's I/O governance, or on SQL Server a resource pool's `MAX_IOPS_PER_VOLUME`; 0 where nothing governs I/O. Taken as part of `io_stall_write_ms` (docs/sqlserver.md, \"Where commit time goes\")",
        PromQL = "share of the log write stall spent queued: `rate(sqlserver_log_file_write_queued_seconds_total[5m]) / rate(sqlserver_log_file_write_stall_seconds_total[5m])`",
    };

    internal FileStatsSignal()
        : base("file_stats")
    {
        Recording = new SignalRecording<FileStatsRow>(this, "file_stats", "file_stats", FileStatsJson.Default.FileStatsRow, Validate);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Writes, Bytes, Stall, QueuedStall];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) => [server.AzureSqlDatabase ? AzureStatement : ServerStatement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => server.AzureSqlDatabase
        ? "sys.dm_io_virtual_file_stats and sys.database_files (log file I/O)"
        : "sys.dm_io_virtual_file_stats and sys.master_files (log file I/O)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, server);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>Each log file over the recording: writes and bytes a second, the size of a write and the stall per write.</summary>
    private sealed class View(string signal) : SignalView<FileStatsRow>
    {
        private readonly Dictionary<(string Instance, int DatabaseId, int FileId), (string Database, CumulativeFigure Writes, CumulativeFigure Bytes, CumulativeFigure StallMs, CumulativeFigure QueuedMs)> _files = [];

        protected override void Observe(string instance, DateTime timestampUtc, in FileStatsRow row)
        {
            var key = (instance, row.DatabaseId, row.FileId);
            var f = _files.GetValueOrDefault(key);
            f.Database = row.DatabaseName;
            f.Writes.Add(row.NumWrites, timestampUtc);
            f.Bytes.Add(row.BytesWritten, timestampUtc);
            f.StallMs.Add(row.IoStallWriteMs, timestampUtc);
            if (row.IoStallQueuedWriteMs is { } queued)
            {
                f.QueuedMs.Add(queued, timestampUtc);
            }

            _files[key] = f;
        }

        public override SignalTable? Table() => _files.Count == 0 ? null : new SignalTable(
            signal, "Log file writes (sys.dm_io_virtual_file_stats)",
            [new("instance"), new("database"), new("file_id"), new("writes", "/s"), new("bytes written", "B/s"), new("bytes per write", "B"), new("stall per write", "ms"), new("queued by I/O governance", "%"), new("restarts")],
            [.. _files.OrderBy(f => f.Key.Instance, StringComparer.Ordinal).ThenBy(f => f.Value.Database, StringComparer.Ordinal).ThenBy(f => f.Key.FileId).Select(f => (IReadOnlyList<object?>)[
                f.Key.Instance, f.Value.Database, (long)f.Key.FileId, f.Value.Writes.PerSecond, f.Value.Bytes.PerSecond,
                f.Value.Writes.Increase > 0 ? (double)f.Value.Bytes.Increase / f.Value.Writes.Increase : null,
                f.Value.Writes.Increase > 0 ? (double)f.Value.StallMs.Increase / f.Value.Writes.Increase : null,
                f.Value.QueuedMs.Started && f.Value.StallMs.Increase > 0 ? Math.Min(100, 100.0 * f.Value.QueuedMs.Increase / f.Value.StallMs.Increase) : null,
                (long)f.Value.Writes.Resets])],
            ["The increase of num_of_writes, num_of_bytes_written and io_stall_write_ms between the first and the last poll: the stall per write is how long the storage took to complete a log write, on average.",
                "Queued by I/O governance: the share of that stall io_stall_queued_write_ms says the writes waited in I/O resource governance's queue before reaching storage (Azure's I/O governance, a resource pool's MAX_IOPS_PER_VOLUME); - where the recording does not have it."]);
    }

    private static string? Validate(FileStatsRow row) =>
        row.DatabaseName is null ? "invalid field 'db': expected a string"
        : !Samples.DatabaseIds.IsValid(row.DatabaseId) ? $"invalid field 'db_id': {row.DatabaseId} is not a database id (0 to {Samples.DatabaseIds.Max})"
        : null;

    /// <summary>Reads the log files and keeps the watched databases' (the lists are applied here, not sent: a list of any length works).</summary>
    private sealed class Poller(FileStatsSignal signal, PollContext context, ServerProfile server) : SignalPoller(context)
    {
        private readonly HashSet<int> _namelessLogged = [];

        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await SqlRows.ReadAsync(connection, Context, server.AzureSqlDatabase ? AzureStatement : ServerStatement, c => (
                Id: c.Int32("DatabaseId"), Name: c.StringOrNull("DatabaseName"), File: c.Int32("FileId"),
                Writes: c.Int64("NumWrites"), Bytes: c.Int64("BytesWritten"), Stall: c.Int64("IoStallWriteMs"), Queued: c.Int64OrNull("IoStallQueuedWriteMs")), cancellationToken).ConfigureAwait(false);
            var kept = new List<FileStatsRow>(rows.Count);
            foreach (var r in rows)
            {
                // DB_NAME is NULL for a database dropped between the two catalog reads: nothing to attribute the row to, but
                // it is counted and said, not dropped silently.
                if (r.Name is null)
                {
                    Context.Sink.OnSourceLoss(Context.Instance, Samples.LossKind.Malformed, 1);
                    if (_namelessLogged.Count < 1000 && _namelessLogged.Add(r.Id))
                    {
                        SignalLog.FileWithoutDatabaseName(Context.Logger, Context.Instance, r.Id);
                    }

                    continue;
                }

                if (Context.Filter.Watches(r.Name))
                {
                    kept.Add(new FileStatsRow(r.Id, r.Name, r.File, r.Writes, r.Bytes, r.Stall, r.Queued));
                }
            }

            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. kept], endsPoll: true));
        }
    }

    /// <summary>Each log file restart-safe, grouped by database (whose sum is exported); a file a poll no longer lists is retired.</summary>
    internal sealed class State(InstanceState instance) : PolledState<FileStatsRow>
    {
        private readonly Dictionary<(int DatabaseId, int FileId), FileStatsSeries> _files = [];

        /// <summary>Each database's log files, by database name, in the order the databases were first seen.</summary>
        private readonly Dictionary<string, DatabaseLogFiles> _byDatabase = new(StringComparer.Ordinal);

        /// <summary>The databases with log files.</summary>
        public IEnumerable<string> DatabaseNames => _byDatabase.Keys;

        /// <summary>One log file's series, if the last poll listed it.</summary>
        public FileStatsSeries? Find(int databaseId, int fileId) => _files.GetValueOrDefault((databaseId, fileId));

        /// <summary>The log files of <paramref name="database"/>.</summary>
        public IEnumerable<FileStatsSeries> Files(string database) => _byDatabase.TryGetValue(database, out var files) ? files.Files : [];

        protected override void ApplyRow(SignalBatch<FileStatsRow> batch, in FileStatsRow row, SignalOutcome outcome)
        {
            instance.LearnName(row.DatabaseId, row.DatabaseName);
            var key = (row.DatabaseId, row.FileId);
            if (!_files.TryGetValue(key, out var s) || s.DatabaseName != row.DatabaseName)
            {
                s = new FileStatsSeries(row.DatabaseId, row.DatabaseName, instance.AcquireDatabaseTags(row.DatabaseName));
                Add(key, s);
            }

            s.Stamp = Stamp;
            var t = batch.TimestampUtc;
            s.Writes.Update(row.NumWrites, t, instance.Epoch, instance.StartTimeUtc);
            s.Bytes.Update(row.BytesWritten, t, instance.Epoch, instance.StartTimeUtc);
            s.StallMs.Update(row.IoStallWriteMs, t, instance.Epoch, instance.StartTimeUtc);
            outcome.Check(instance, "file stats", row.DatabaseName, ("num_of_writes", row.NumWrites, s.Writes.LastVerdict),
                ("num_of_bytes_written", row.BytesWritten, s.Bytes.LastVerdict), ("io_stall_write_ms", row.IoStallWriteMs, s.StallMs.LastVerdict));
            if (row.IoStallQueuedWriteMs is { } queued)
            {
                s.HasQueued = true;
                s.QueuedMs.Update(queued, t, instance.Epoch, instance.StartTimeUtc);
                outcome.Check(instance, "file stats", row.DatabaseName, ("io_stall_queued_write_ms", queued, s.QueuedMs.LastVerdict));
            }
        }

        protected override void EndPoll(int keep, SignalBatch<FileStatsRow> batch, SignalOutcome outcome)
        {
            foreach (var (key, s) in _files)
            {
                if (s.Stamp != keep)
                {
                    Remove(key);
                }
            }
        }

        public override void Read(MeasurementBuffers into)
        {
            foreach (var database in _byDatabase.Values)
            {
                long writes = 0, bytes = 0;
                double stallSeconds = 0, queuedSeconds = 0;
                var queued = false;
                foreach (var f in database.Files)
                {
                    writes += f.Writes.Total;
                    bytes += f.Bytes.Total;
                    stallSeconds += f.StallMs.Total / 1000.0;
                    queuedSeconds += f.QueuedMs.Total / 1000.0;
                    queued |= f.HasQueued;
                }

                into.Add(Writes, writes, database.Tags);
                into.Add(Bytes, bytes, database.Tags);
                into.Add(Stall, stallSeconds, database.Tags);
                if (queued)
                {
                    // A replay of a recording made before the column was read has no such series, never a 0.
                    into.Add(QueuedStall, queuedSeconds, database.Tags);
                }
            }
        }

        /// <summary>Keeps <paramref name="series"/> (replacing any series of the same key) in its database's group.</summary>
        private void Add((int DatabaseId, int FileId) key, FileStatsSeries series)
        {
            Remove(key);
            _files[key] = series;
            if (!_byDatabase.TryGetValue(series.DatabaseName, out var files))
            {
                files = new DatabaseLogFiles(series.Tags);
                _byDatabase[series.DatabaseName] = files;
            }

            files.Files.Add(series);
        }

        /// <summary>Forgets a log file's series; a database left without files leaves the export.</summary>
        private void Remove((int DatabaseId, int FileId) key)
        {
            if (!_files.Remove(key, out var old))
            {
                return;
            }

            instance.ReleaseDatabaseTags(old.DatabaseName);
            if (_byDatabase.TryGetValue(old.DatabaseName, out var files))
            {
                files.Files.Remove(old);
                if (files.Files.Count == 0)
                {
                    _byDatabase.Remove(old.DatabaseName);
                }
            }
        }
    }
}

/// <summary>The file_stats line's contract.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(FileStatsRow))]
internal sealed partial class FileStatsJson : JsonSerializerContext;

using System.Data.Common;
using System.Globalization;
using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// One log file as the catalog describes it (<c>sys.master_files</c>, type 1; on Azure SQL Database
/// <c>sys.database_files</c>) with the free space of the volume under it (<c>sys.dm_os_volume_stats</c>; on Managed
/// Instance the instance's free storage). Sizes in 8 KB pages, as the catalog gives them; the volume in bytes. A figure
/// the server did not give (a volume the DMV cannot read, Azure SQL Database's volume) is null.
/// </summary>
/// <param name="DatabaseId">database_id.</param>
/// <param name="DatabaseName">DB_NAME(database_id).</param>
/// <param name="FileId">file_id.</param>
/// <param name="SizePages">size: the file's size now, 8 KB pages.</param>
/// <param name="MaxSizePages">max_size: -1 unlimited (to the 2 TB a log file can have), 0 no growth, else the cap in pages (268,435,456 = 2 TB).</param>
/// <param name="Growth">growth: 0 a fixed size; else pages, or a percent when <paramref name="PercentGrowth"/>.</param>
/// <param name="PercentGrowth">is_percent_growth.</param>
/// <param name="Volume">The volume's mount point (volume_mount_point), which files on one volume share; null when unknown.</param>
/// <param name="VolumeTotalBytes">total_bytes of that volume.</param>
/// <param name="VolumeAvailableBytes">available_bytes of that volume: what any file on it can still grow into.</param>
public readonly record struct LogFileRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db"), JsonRequired] string DatabaseName,
    [property: JsonPropertyName("file_id"), JsonRequired] int FileId,
    [property: JsonPropertyName("size_pages"), JsonRequired] long SizePages,
    [property: JsonPropertyName("max_size_pages"), JsonRequired] long MaxSizePages,
    [property: JsonPropertyName("growth"), JsonRequired] long Growth,
    [property: JsonPropertyName("percent_growth"), JsonRequired] bool PercentGrowth,
    [property: JsonPropertyName("volume")] string? Volume,
    [property: JsonPropertyName("volume_total_bytes")] long? VolumeTotalBytes,
    [property: JsonPropertyName("volume_available_bytes")] long? VolumeAvailableBytes);

/// <summary>
/// The room the log has: each log file's size, <c>max_size</c> and growth from the catalog, the free space of the volume
/// under it, and from them the log's <b>headroom</b>, the largest it can become (docs/sqlserver.md, "The log's space"):
/// per volume, the smaller of its files' maximum sizes and their sizes plus the volume's free space, summed over the
/// volumes. A file that cannot grow (growth 0, max_size 0) stays at its size; an unlimited one stops at the 2 TB a log
/// file can have. Where the volume's free space is not known (Azure SQL Database, a volume the DMV cannot read) the
/// maximum sizes alone bound it. The growth settings are advice (percent growth and 1 MB growth on a large log), never
/// a page.
/// </summary>
public sealed class LogFilesSignal : Signal<LogFileRow>
{
    /// <summary>8 KB pages, the unit of size, max_size and growth (Microsoft, sys.master_files).</summary>
    public const long PageBytes = 8192;

    /// <summary>The most a log file can have: 2 TB, max_size 268,435,456 pages (Microsoft, sys.master_files).</summary>
    public const long MaxLogFilePages = 268_435_456;

    /// <summary>A file this large or larger (about 1 GB) with percent or 1 MB growth is worth a word (sp_Blitz checks 82 and 158).</summary>
    public const long LargeFilePages = 128_000;

    /// <summary>Growth of 1 MB: 128 pages (sp_Blitz check 158).</summary>
    public const long OneMegabyteGrowthPages = 128;

    /// <summary>
    /// Every database's log files (type 1) that are online (state 0: the files of an offline database give no volume),
    /// with the volume under each (<c>OUTER APPLY</c>: a file on storage the DMV cannot read keeps its row with NULL
    /// volume figures). The engine edition comes along so that a Managed Instance also asks for its instance storage.
    /// sys.master_files shows a login its rows only with VIEW ANY DEFINITION (or CREATE DATABASE / ALTER ANY DATABASE);
    /// sys.dm_os_volume_stats needs VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE). docs/sqlserver.md.
    /// </summary>
    public static readonly SignalStatement ServerStatement = new("log_files", """
        SELECT mf.database_id AS DatabaseId, DB_NAME(mf.database_id) AS DatabaseName, mf.file_id AS FileId,
               CAST(mf.size AS bigint) AS SizePages, CAST(mf.max_size AS bigint) AS MaxSizePages, CAST(mf.growth AS bigint) AS Growth,
               mf.is_percent_growth AS PercentGrowth, vs.volume_mount_point AS Volume,
               vs.total_bytes AS VolumeTotalBytes, vs.available_bytes AS VolumeAvailableBytes,
               CAST(SERVERPROPERTY('EngineEdition') AS int) AS EngineEdition
        FROM sys.master_files AS mf
        OUTER APPLY sys.dm_os_volume_stats(mf.database_id, mf.file_id) AS vs
        WHERE mf.type = 1 AND mf.state = 0
        """, "sys.master_files");

    /// <summary>
    /// Azure SQL Managed Instance: the instance's storage, reserved and used (<c>sys.server_resource_stats</c>, the newest
    /// row). Microsoft's resource limits of Managed Instance: a log file is "limited to 2 TB and currently available
    /// instance storage size", the reserved size less the used space; the volume under a file is not that limit.
    /// </summary>
    public static readonly SignalStatement InstanceStorageStatement = new("instance_storage", """
        SELECT TOP (1) CAST(reserved_storage_mb AS bigint) AS ReservedMb, CAST(storage_space_used_mb AS bigint) AS UsedMb
        FROM sys.server_resource_stats
        ORDER BY end_time DESC
        """, "sys.server_resource_stats");

    /// <summary>
    /// Azure SQL Database: this database's log file (<c>sys.database_files</c>; no volume: the service tier's maximum
    /// log size bounds it, which max_size is believed to report, docs/sqlserver.md).
    /// </summary>
    public static readonly SignalStatement AzureStatement = new("log_files", """
        SELECT DB_ID() AS DatabaseId, DB_NAME() AS DatabaseName, df.file_id AS FileId,
               CAST(df.size AS bigint) AS SizePages, CAST(df.max_size AS bigint) AS MaxSizePages, CAST(df.growth AS bigint) AS Growth,
               df.is_percent_growth AS PercentGrowth, CAST(NULL AS nvarchar(512)) AS Volume,
               CAST(NULL AS bigint) AS VolumeTotalBytes, CAST(NULL AS bigint) AS VolumeAvailableBytes,
               CAST(SERVERPROPERTY('EngineEdition') AS int) AS EngineEdition
        FROM sys.database_files AS df
        WHERE df.type = 1
        """, "sys.database_files");

    /// <summary>The volume name the files of a Managed Instance share: its storage, not a disk.</summary>
    public const string InstanceStorage = "(instance storage)";

    private static readonly string[] InstDb = [Instance, Database];

    internal static readonly MetricDefinition Headroom = new()
    {
        Name = "sqlserver.log.headroom", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "The largest the database's log can become: per volume, the smaller of its log files' max sizes and their sizes plus the volume's free space, summed.",
        Meaning = "the log's headroom, the largest it can become: for each volume under its log files the smaller of the files' `max_size` (unlimited: the 2 TB a log file can have; no growth: its size) and their `size` plus the volume's `available_bytes` (`sys.dm_os_volume_stats`), summed over the volumes; without the volume's figure (Azure SQL Database, a volume the DMV cannot read) the max sizes alone. Needs VIEW ANY DEFINITION (rows of `sys.master_files`); no series without it",
        PromQL = "room left: `sqlserver_log_headroom_bytes - sqlserver_log_active_size_bytes`",
    };

    internal static readonly MetricDefinition MaxSize = new()
    {
        Name = "sqlserver.log.max.size", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "The sum of the log files' maximum sizes (max_size; unlimited counts as the 2 TB a log file can have, no growth as the size).",
        Meaning = "the sum of the log files' maximum sizes: `max_size` × 8 KB, unlimited (-1) as 2 TB, a file that cannot grow (growth 0 or max_size 0) as its size",
        PromQL = "`sqlserver_log_max_size_bytes`",
    };

    internal static readonly MetricDefinition VolumeAvailable = new()
    {
        Name = "sqlserver.log.volume.available", Unit = "By", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.LogSpace,
        Description = "Free space of the volumes under the database's log files (sys.dm_os_volume_stats available_bytes, each volume once); on Managed Instance the instance's free storage.",
        Meaning = "free space of the volumes under the log files (`available_bytes` of `sys.dm_os_volume_stats`, each volume counted once); on Managed Instance the instance's reserved storage less its used storage (`sys.server_resource_stats`); no series where the platform does not say (Azure SQL Database)",
        PromQL = "`sqlserver_log_volume_available_bytes`",
    };

    internal LogFilesSignal()
        : base("log_files")
    {
        Recording = new SignalRecording<LogFileRow>(this, "log_file", "log_files", LogFileJson.Default.LogFileRow, Validate);
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Headroom, MaxSize, VolumeAvailable];

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override IReadOnlyList<SignalStatement> Statements(ServerProfile server) =>
        server.AzureSqlDatabase ? [AzureStatement]
        : server.EngineEdition == CountersSignal.AzureManagedInstance ? [ServerStatement, InstanceStorageStatement]
        : [ServerStatement];

    /// <inheritdoc />
    public override string Describe(ServerProfile server) => server.AzureSqlDatabase
        ? "sys.database_files (the log file's size, max size and growth)"
        : "sys.master_files with sys.dm_os_volume_stats (the log files' size, max size, growth and the free space under them)";

    /// <inheritdoc />
    public override SignalPoller NewPoller(PollContext context, ServerProfile server) => new Poller(this, context, server);

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    /// <inheritdoc />
    public override IReadOnlyList<string> CheckAdvice(IReadOnlyList<SignalBatch> batches)
    {
        ArgumentNullException.ThrowIfNull(batches);
        var last = new Dictionary<(string Instance, string Database, int File), LogFileRow>();
        foreach (var batch in batches.OfType<SignalBatch<LogFileRow>>())
        {
            foreach (var row in batch.Rows)
            {
                last[(batch.Instance, row.DatabaseName, row.FileId)] = row;
            }
        }

        return [.. last.OrderBy(f => f.Key.Database, StringComparer.Ordinal).ThenBy(f => f.Key.File)
            .Select(f => GrowthAdvice(f.Value) is { } advice ? $"{f.Key.Database}: {advice}" : null).OfType<string>()];
    }

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>
    /// What a log file's growth setting deserves a word about, or null: percent growth on a large log (each growth takes
    /// longer as the file grows; sp_Blitz check 82), and 1 MB growth on a large log (thousands of growths and VLFs;
    /// sp_Blitz check 158). "Large" is <see cref="LargeFilePages"/> (about 1 GB), as sp_Blitz has it.
    /// </summary>
    public static string? GrowthAdvice(in LogFileRow file)
    {
        if (file.SizePages < LargeFilePages || file.Growth <= 0)
        {
            return null;
        }

        var size = Bytes(file.SizePages * PageBytes);
        return file.PercentGrowth
            ? string.Create(CultureInfo.InvariantCulture, $"log file {file.FileId} ({size}) grows by {file.Growth} %: each growth is larger and slower than the last (the log cannot use instant file initialization); set a fixed growth such as 512 MB")
            : file.Growth == OneMegabyteGrowthPages
                ? string.Create(CultureInfo.InvariantCulture, $"log file {file.FileId} ({size}) grows by 1 MB: it grows in thousands of small steps, each adding VLFs; set a fixed growth such as 512 MB")
                : null;
    }

    /// <summary>A size as a person reads it: 812 B, 3.5 KB, 4.9 MB, 4.1 GB, 2 TB (1,024-based).</summary>
    public static string Bytes(long bytes) => bytes switch
    {
        < 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes} B"),
        < 1L << 20 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1024.0:0.#} KB"),
        < 1L << 30 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1048576.0:0.#} MB"),
        < 1L << 40 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1073741824.0:0.#} GB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1099511627776.0:0.##} TB"),
    };

    /// <summary>
    /// The room of one database's log from its files (docs/sqlserver.md): its headroom, the sum of the files' maximum sizes,
    /// the free space of the volumes under them (each once; null when no volume is known), and whether the max sizes
    /// (rather than the volumes) are what bounds it.
    /// </summary>
    public static LogRoom Room(IEnumerable<LogFileRow> files)
    {
        ArgumentNullException.ThrowIfNull(files);
        long headroom = 0, max = 0;
        long? available = null;
        var boundByMax = true;
        var count = 0;
        // Files on one volume share its free space; a file whose volume is not named is a volume of its own.
        foreach (var volume in files.GroupBy(f => string.IsNullOrEmpty(f.Volume) ? "\0" + f.FileId.ToString(CultureInfo.InvariantCulture) : f.Volume, StringComparer.Ordinal))
        {
            long volumeMax = 0, volumeSize = 0;
            long? free = null;
            foreach (var f in volume)
            {
                count++;
                var size = Math.Max(0, f.SizePages) * PageBytes;
                volumeSize += size;
                volumeMax += EffectiveMaxBytes(f);
                free = f.VolumeAvailableBytes is { } a ? Math.Max(0, a) : free;
            }

            max += volumeMax;
            if (free is { } room)
            {
                available = (available ?? 0) + room;
                var reach = volumeSize + room;
                if (reach < volumeMax)
                {
                    boundByMax = false;
                    headroom += reach;
                    continue;
                }
            }

            headroom += volumeMax;
        }

        return new LogRoom(count, headroom, max, available, boundByMax);
    }

    /// <summary>The most one log file can become, bytes: its size when it cannot grow, else max_size capped at the 2 TB a log file can have.</summary>
    public static long EffectiveMaxBytes(in LogFileRow file)
    {
        var size = Math.Max(0, file.SizePages);
        var pages = file.Growth <= 0 || file.MaxSizePages == 0 ? size
            : file.MaxSizePages < 0 ? MaxLogFilePages
            : Math.Min(file.MaxSizePages, MaxLogFilePages);
        return Math.Max(pages, size) * PageBytes;
    }

    /// <summary>The log files over the recording: each file's size, limit and growth at the last poll, and the room of its database then.</summary>
    private sealed class View(string signal) : SignalView<LogFileRow>
    {
        private readonly Dictionary<(string Instance, string Database, int File), (LogFileRow First, LogFileRow Last)> _files = [];

        protected override void Observe(string instance, DateTime timestampUtc, in LogFileRow row)
        {
            var key = (instance, row.DatabaseName, row.FileId);
            _files[key] = _files.TryGetValue(key, out var f) ? (f.First, row) : (row, row);
        }

        public override SignalTable? Table()
        {
            if (_files.Count == 0)
            {
                return null;
            }

            var rooms = _files.GroupBy(f => (f.Key.Instance, f.Key.Database)).ToDictionary(g => g.Key, g => Room(g.Select(f => f.Value.Last)));
            var advice = _files.OrderBy(f => f.Key.Instance, StringComparer.Ordinal).ThenBy(f => f.Key.Database, StringComparer.Ordinal).ThenBy(f => f.Key.File)
                .Select(f => GrowthAdvice(f.Value.Last) is { } a ? $"{f.Key.Instance}/{f.Key.Database}: {a}." : null).OfType<string>().ToList();
            return new SignalTable(signal, "Log files and their room (sys.master_files, sys.dm_os_volume_stats)",
                [new("instance"), new("database"), new("file_id"), new("size", "B"), new("grew", "B"), new("max size"), new("growth"),
                    new("volume free", "B"), new("database headroom", "B")],
                [.. _files.OrderBy(f => f.Key.Instance, StringComparer.Ordinal).ThenBy(f => f.Key.Database, StringComparer.Ordinal).ThenBy(f => f.Key.File)
                    .Select(f => (IReadOnlyList<object?>)[
                        f.Key.Instance, f.Key.Database, (long)f.Key.File, f.Value.Last.SizePages * PageBytes,
                        (f.Value.Last.SizePages - f.Value.First.SizePages) * PageBytes, MaxText(f.Value.Last), GrowthText(f.Value.Last),
                        f.Value.Last.VolumeAvailableBytes, rooms[(f.Key.Instance, f.Key.Database)].HeadroomBytes])],
                [
                    "Sizes at the last poll; 'grew' is the size then less the size at the first poll. The headroom is the largest the database's log can become: per volume, the smaller of its files' max sizes and their sizes plus the volume's free space.",
                    .. advice,
                ]);
        }

        private static string MaxText(in LogFileRow f) =>
            f.Growth <= 0 || f.MaxSizePages == 0 ? "no growth" : f.MaxSizePages < 0 ? "unlimited (2 TB)" : Bytes(Math.Min(f.MaxSizePages, MaxLogFilePages) * PageBytes);

        private static string GrowthText(in LogFileRow f) =>
            f.Growth <= 0 ? "none" : f.PercentGrowth ? string.Create(CultureInfo.InvariantCulture, $"{f.Growth} %") : Bytes(f.Growth * PageBytes);
    }

    private static string? Validate(LogFileRow row) =>
        row.DatabaseName is null ? "invalid field 'db': expected a string"
        : !DatabaseIds.IsValid(row.DatabaseId) ? $"invalid field 'db_id': {row.DatabaseId} is not a database id (0 to {DatabaseIds.Max})"
        : row.SizePages < 0 ? "invalid field 'size_pages': a size is not negative"
        : null;

    /// <summary>
    /// Reads the log files and keeps the watched databases'; on a Managed Instance the instance's free storage stands for the
    /// volume under every file (one shared volume), as Microsoft's resource limits describe a log file's limit there.
    /// </summary>
    private sealed class Poller(LogFilesSignal signal, PollContext context, ServerProfile server) : SignalPoller(context)
    {
        private readonly HashSet<int> _namelessLogged = [];

        public override async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
        {
            var rows = await SqlRows.ReadAsync(connection, Context, server.AzureSqlDatabase ? AzureStatement : ServerStatement, c => (
                Id: c.Int32("DatabaseId"), Name: c.StringOrNull("DatabaseName"), File: c.Int32("FileId"), Size: c.Int64("SizePages"),
                Max: c.Int64("MaxSizePages"), Growth: c.Int64("Growth"), Percent: c.Boolean("PercentGrowth"), Volume: c.StringOrNull("Volume"),
                Total: c.Int64OrNull("VolumeTotalBytes"), Available: c.Int64OrNull("VolumeAvailableBytes"), Edition: c.Int32OrNull("EngineEdition")), cancellationToken).ConfigureAwait(false);
            (long Total, long Available)? storage = null;
            if (!server.AzureSqlDatabase && rows.Any(r => r.Edition == CountersSignal.AzureManagedInstance))
            {
                var s = (await SqlRows.ReadAsync(connection, Context, InstanceStorageStatement, c => (Reserved: c.Int64("ReservedMb"), Used: c.Int64("UsedMb")), cancellationToken)
                    .ConfigureAwait(false)).FirstOrDefault();
                storage = s.Reserved > 0 ? (s.Reserved * 1048576, Math.Max(0, s.Reserved - s.Used) * 1048576) : null;
            }

            var kept = new List<LogFileRow>(rows.Count);
            foreach (var r in rows)
            {
                if (r.Name is null)
                {
                    // A database dropped between the catalog's rows and DB_NAME: counted and said, not dropped silently.
                    Context.Sink.OnSourceLoss(Context.Instance, Samples.LossKind.Malformed, 1);
                    if (_namelessLogged.Count < 1000 && _namelessLogged.Add(r.Id))
                    {
                        SignalLog.FileWithoutDatabaseName(Context.Logger, Context.Instance, r.Id);
                    }

                    continue;
                }

                if (Context.Filter.Watches(r.Name))
                {
                    kept.Add(storage is { } st
                        ? new LogFileRow(r.Id, r.Name, r.File, r.Size, r.Max, r.Growth, r.Percent, InstanceStorage, st.Total, st.Available)
                        : new LogFileRow(r.Id, r.Name, r.File, r.Size, r.Max, r.Growth, r.Percent, r.Volume, r.Total, r.Available));
                }
            }

            Context.Deliver(signal.Batch(Context.Instance, Context.UtcNow, [.. kept], endsPoll: true));
        }
    }

    /// <summary>Each log file as the last poll listed it, grouped by database, whose room is exported; a file a poll no longer lists is retired.</summary>
    internal sealed class State(InstanceState instance) : PolledState<LogFileRow>
    {
        private readonly Dictionary<(int DatabaseId, int FileId), LogFileSeries> _files = [];
        private readonly Dictionary<string, List<LogFileSeries>> _byDatabase = new(StringComparer.Ordinal);

        /// <summary>Each database's room, worked out once per poll (a collect reads it for every database, and so does the log's space).</summary>
        private readonly Dictionary<string, LogRoom> _rooms = new(StringComparer.Ordinal);

        /// <summary>The databases with log files.</summary>
        public IEnumerable<string> DatabaseNames => _byDatabase.Keys;

        /// <summary>The room of <paramref name="database"/>'s log as the last poll saw its files, or null when none was listed.</summary>
        public LogRoom? Room(string database)
        {
            if (_rooms.TryGetValue(database, out var room))
            {
                return room;
            }

            // Rows applied since the last end of a poll (a replay's lines): worked out now and kept until the poll ends.
            if (!_byDatabase.TryGetValue(database, out var files) || files.Count == 0)
            {
                return null;
            }

            room = LogFilesSignal.Room(files.Select(f => f.Row));
            _rooms[database] = room;
            return room;
        }

        /// <summary>The log files of <paramref name="database"/> as the last poll saw them.</summary>
        public IEnumerable<LogFileRow> Files(string database) => _byDatabase.TryGetValue(database, out var files) ? files.Select(f => f.Row) : [];

        protected override void ApplyRow(SignalBatch<LogFileRow> batch, in LogFileRow row, SignalOutcome outcome)
        {
            instance.LearnName(row.DatabaseId, row.DatabaseName);
            var key = (row.DatabaseId, row.FileId);
            if (!_files.TryGetValue(key, out var s) || s.Row.DatabaseName != row.DatabaseName)
            {
                Remove(key);
                s = new LogFileSeries(instance.AcquireDatabaseTags(row.DatabaseName)) { Row = row };
                _files[key] = s;
                if (!_byDatabase.TryGetValue(row.DatabaseName, out var files))
                {
                    _byDatabase[row.DatabaseName] = files = [];
                }

                files.Add(s);
            }

            s.Row = row;
            s.Stamp = Stamp;
            _rooms.Remove(row.DatabaseName);
        }

        protected override void EndPoll(int keep, SignalBatch<LogFileRow> batch, SignalOutcome outcome)
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
            foreach (var (database, files) in _byDatabase)
            {
                if (Room(database) is not { } room)
                {
                    continue;
                }

                var tags = files[0].Tags;
                into.Add(Headroom, room.HeadroomBytes, tags);
                into.Add(MaxSize, room.MaxBytes, tags);
                if (room.VolumeAvailableBytes is { } available)
                {
                    into.Add(VolumeAvailable, available, tags);
                }
            }
        }

        private void Remove((int DatabaseId, int FileId) key)
        {
            if (!_files.Remove(key, out var old))
            {
                return;
            }

            instance.ReleaseDatabaseTags(old.Row.DatabaseName);
            _rooms.Remove(old.Row.DatabaseName);
            if (_byDatabase.TryGetValue(old.Row.DatabaseName, out var files))
            {
                files.Remove(old);
                if (files.Count == 0)
                {
                    _byDatabase.Remove(old.Row.DatabaseName);
                }
            }
        }
    }

    /// <summary>One log file's last row, with its database's shared tags.</summary>
    private sealed class LogFileSeries : PolledSeries
    {
        public LogFileSeries(KeyValuePair<string, object?>[] tags) => Tags = tags;

        public LogFileRow Row { get; set; }
    }
}

/// <summary>The room of one database's log (<see cref="LogFilesSignal.Room"/>).</summary>
/// <param name="Files">The log files it is made of.</param>
/// <param name="HeadroomBytes">The largest the log can become.</param>
/// <param name="MaxBytes">The sum of the files' maximum sizes.</param>
/// <param name="VolumeAvailableBytes">The free space of the volumes under them (each once), or null when no volume is known.</param>
/// <param name="BoundByMaxSize">True when the max sizes bound the headroom; false when a volume's free space does.</param>
public readonly record struct LogRoom(int Files, long HeadroomBytes, long MaxBytes, long? VolumeAvailableBytes, bool BoundByMaxSize);

/// <summary>The log_file line's contract: a figure the server left NULL is absent.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(LogFileRow))]
internal sealed partial class LogFileJson : JsonSerializerContext;

using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>
/// The log's space: what <c>sys.dm_db_log_stats</c> applied to each database of <c>sys.databases</c> answers (SQL Server 2016
/// SP2 and later, Azure), what <c>sys.databases.log_reuse_wait_desc</c> with the log counters answers before, and the log
/// files of <c>sys.master_files</c> with <c>sys.dm_os_volume_stats</c> (or <c>sys.database_files</c> on Azure SQL Database, and
/// <c>sys.server_resource_stats</c> on Managed Instance). Shapes from Microsoft's pages of those views: the DMV's sizes in MB
/// (float, which the statements make bytes), the catalog's in 8 KB pages, the volume's in bytes; NULL where the DMV leaves
/// it (an availability-group secondary: database_id, recovery_model and log_backup_time only; a log never backed up:
/// 1900-01-01); no row of the volume DMF for a volume it cannot read; no row of sys.master_files without VIEW ANY
/// DEFINITION (or ALTER ANY DATABASE, CREATE DATABASE).
/// </summary>
public sealed partial class ScriptedSqlServer
{
    // What LogSpaceSignal's statements return: database_id (int), sysname, the nvarchar(60) texts, the bigint byte counts
    // the statement makes of the DMV's float MB, the bigint counts, and the CAST(DATEDIFF(...) AS bigint) age.
    private static readonly TdsColumn[] LogSpaceColumns =
    [
        TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("DatabaseName"), TdsColumn.NVarChar("RecoveryModel"), TdsColumn.NVarChar("Reason"),
        TdsColumn.BigInt("TotalBytes"), TdsColumn.BigInt("ActiveBytes"), TdsColumn.BigInt("Vlfs"), TdsColumn.BigInt("ActiveVlfs"),
        TdsColumn.BigInt("SinceLogBackupBytes"), TdsColumn.BigInt("SinceCheckpointBytes"), TdsColumn.BigInt("LogBackupAgeSeconds"),
    ];

    // What LogFilesSignal's statements return: sys.master_files' int ids, the CAST(... AS bigint) page counts, the bit,
    // sys.dm_os_volume_stats' nvarchar(512) mount point and bigint bytes, and CAST(SERVERPROPERTY('EngineEdition') AS int).
    private static readonly TdsColumn[] LogFileColumns =
    [
        TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("DatabaseName"), TdsColumn.Int("FileId"), TdsColumn.BigInt("SizePages"),
        TdsColumn.BigInt("MaxSizePages"), TdsColumn.BigInt("Growth"), TdsColumn.Bit("PercentGrowth"), TdsColumn.NVarChar("Volume"),
        TdsColumn.BigInt("VolumeTotalBytes"), TdsColumn.BigInt("VolumeAvailableBytes"), TdsColumn.Int("EngineEdition"),
    ];

    /// <summary>The volumes sys.dm_os_volume_stats can read, by mount point: total and available bytes.</summary>
    public Dictionary<string, (long TotalBytes, long AvailableBytes)> Volumes { get; } = new(StringComparer.Ordinal)
    {
        ["/var/opt/mssql/"] = (250L << 30, 120L << 30),
    };

    /// <summary>Managed Instance: reserved_storage_mb and storage_space_used_mb of sys.server_resource_stats' newest row.</summary>
    public (long ReservedMb, decimal UsedMb) InstanceStorage { get; set; } = (1_048_576, 307_200.25m);

    private void AddLogSpaceRules()
    {
        // The instance's storage (reserved_storage_mb): the log-rate cap's statement reads the same view for the sku.
        Server.When("reserved_storage_mb", r =>
        {
            lock (_gate)
            {
                return Begin(r).ResultSet([TdsColumn.BigInt("ReservedMb"), TdsColumn.BigInt("UsedMb")],
                    [[InstanceStorage.ReservedMb, (long)InstanceStorage.UsedMb]]);
            }
        });
        Server.When("sys.dm_os_volume_stats", LogFilesAnswer);
        Server.When("df.max_size", LogFilesAnswer);
        Server.When("sys.dm_db_log_stats", LogStatsAnswer);
        Server.When("log_reuse_wait_desc", ReuseWaitAnswer);
    }

    /// <summary>The server's local clock (log_backup_time is server-local datetime).</summary>
    private DateTime LocalNow => Server.Options.TimeProvider.GetUtcNow().UtcDateTime + UtcOffset;

    private TdsResponse LogStatsAnswer(TdsRequest request)
    {
        lock (_gate)
        {
            // Azure SQL Database's statement reads DB_ID()'s row only; the server's reads every online database but snapshots.
            var currentOnly = request.Text.Contains("DB_ID()", StringComparison.OrdinalIgnoreCase);
            var now = LocalNow;
            var rows = _databases.Where(d => d.IsOnline && (!currentOnly || d.Name == CurrentDatabase)).Select(d =>
            {
                var age = d.LogBackupTimeLocal is { } t ? (long?)(long)(now - t).TotalSeconds : null;
                return d.IsSecondaryReplica
                    ? new object?[] { d.Id, d.Name, d.RecoveryModel, null, null, null, null, null, null, null, age }
                    : [d.Id, d.Name, d.RecoveryModel, d.LogReuseWait, Bytes(d.LogSizeKb / 1024.0), Bytes(d.LogSizeKb * d.PercentLogUsed / 100 / 1024.0),
                        d.Vlfs, d.ActiveVlfs, Bytes(d.LogSinceBackupMb), Bytes(d.LogSinceCheckpointMb), age];
            }).ToList();
            return Begin(request).ResultSet(LogSpaceColumns, rows);
        }

        // CAST(x_mb * 1048576 AS bigint): SQL Server truncates the float toward zero.
        static long Bytes(double mb) => (long)(mb * 1048576);
    }

    private TdsResponse ReuseWaitAnswer(TdsRequest request)
    {
        lock (_gate)
        {
            // The counters' KB times 1024; a database without counter rows (LEFT JOIN) has NULL sizes.
            var rows = _databases.Where(d => d.IsOnline).Select(d => new object?[]
            {
                d.Id, d.Name, d.RecoveryModel, d.LogReuseWait ?? "NOTHING",
                d.HasCounters ? d.LogSizeKb * 1024 : null, d.HasCounters ? d.LogSizeKb * d.PercentLogUsed / 100 * 1024 : null,
                null, null, null, null, null,
            }).ToList();
            return Begin(request).ResultSet(LogSpaceColumns, rows);
        }
    }

    private TdsResponse LogFilesAnswer(TdsRequest request)
    {
        lock (_gate)
        {
            var azure = request.Text.Contains("sys.database_files", StringComparison.OrdinalIgnoreCase);
            string[] showing = ["VIEW ANY DEFINITION", "ALTER ANY DATABASE", "CREATE DATABASE"];
            // Metadata visibility: sys.master_files shows a login its rows only with one of these (its page's Permissions);
            // sys.database_files shows a database's user its own files.
            if (!azure && !showing.Any(p => HeldPermissions.Contains(p) && !_denied.Contains(p)))
            {
                return Begin(request).ResultSet(LogFileColumns, []);
            }

            var rows = new List<object?[]>();
            foreach (var d in _databases.Where(d => d.IsOnline && (!azure || d.Name == CurrentDatabase)))
            {
                var volume = azure || !Volumes.TryGetValue(d.LogVolume, out var v) ? ((long, long)?)null : v;
                rows.Add([d.Id, d.Name, d.LogFileId, d.LogSizeKb / 8, d.LogMaxSizePages, d.LogGrowth, d.LogPercentGrowth,
                    volume is null ? null : d.LogVolume, volume?.Item1, volume?.Item2, EngineEdition]);
            }

            return Begin(request).ResultSet(LogFileColumns, rows);
        }
    }
}

namespace LogFlushMonitor.Simulation;

/// <summary>
/// How a simulated database's log file is set and kept: its size, max size and growth (8 KB pages, as sys.master_files
/// gives them), the volume under it, the recovery model, when the last log backup ran and whether log backups go on. The
/// defaults are a new database's on SQL Server 2016 and later: a 2 TB max size (268,435,456 pages), 64 MB growth (8,192
/// pages), the full recovery model, log backups running (the log is backed up when it passes 70 % full).
/// </summary>
/// <param name="InitialActiveBytes">The active log when the simulation starts.</param>
/// <param name="MaxSizePages">max_size: -1 unlimited, else pages.</param>
/// <param name="GrowthPages">growth in pages (0: the file cannot grow).</param>
/// <param name="VolumeTotalBytes">total_bytes of the volume under the log.</param>
/// <param name="VolumeFreeBytes">available_bytes of that volume at the start.</param>
/// <param name="LastBackupBefore">How long before the start the last log backup ran.</param>
/// <param name="Backups">Whether log backups go on (at 70 % full); false: they stopped, the log cannot be reused.</param>
internal sealed record LogPlan(
    long InitialActiveBytes = 0,
    long MaxSizePages = 268_435_456,
    long GrowthPages = 8_192,
    long VolumeTotalBytes = 512L << 30,
    long VolumeFreeBytes = 200L << 30,
    TimeSpan? LastBackupBefore = null,
    bool Backups = true)
{
    /// <summary>The volume's mount point: each simulated database's log has a volume of its own.</summary>
    public static string VolumeOf(string database) => "/var/opt/mssql/log/" + database + "/";
}

/// <summary>
/// A simulated database's log as the server keeps it: the file's size grows by its growth setting when the active log
/// needs more room (each growth takes that much of the volume and adds VLFs), up to its max size and the volume's free
/// space; a write that finds no room fails (error 9002) and is not made. VLFs follow Microsoft's formula ("SQL Server
/// transaction log architecture and management guide"): a growth under 1/8 of the log adds 1 VLF, up to 64 MB 4, up to
/// 1 GB 8, more 16.
/// </summary>
internal sealed class SimulatedLog
{
    private const long PageBytes = 8192;

    public SimulatedLog(long sizeKb, LogPlan plan)
    {
        Plan = plan;
        SizePages = sizeKb / 8;
        VolumeFreeBytes = plan.VolumeFreeBytes;
        Vlfs = VlfsFor(SizePages * PageBytes, 0);
        // The active log at the start was written since the last log backup (nothing truncated it since).
        SinceBackupBytes = plan.InitialActiveBytes;
    }

    public LogPlan Plan { get; }

    /// <summary>size of the log file, pages.</summary>
    public long SizePages { get; private set; }

    /// <summary>Free space on the volume under it.</summary>
    public long VolumeFreeBytes { get; private set; }

    /// <summary>Times the file grew (Log Growths; from zero at a restart).</summary>
    public long Growths { get; set; }

    /// <summary>total_vlf_count.</summary>
    public long Vlfs { get; private set; }

    /// <summary>When the last log backup ran, ticks (set at the start).</summary>
    public long LastBackupTicks { get; set; }

    /// <summary>Bytes written since the last log backup.</summary>
    public long SinceBackupBytes { get; set; }

    /// <summary>Bytes written since the last checkpoint (one a minute, as automatic checkpoints of a busy database run).</summary>
    public long SinceCheckpointBytes { get; set; }

    /// <summary>When the last checkpoint ran, ticks.</summary>
    public long LastCheckpointTicks { get; set; }

    /// <summary>Whether the file can take <paramref name="activeBytes"/>, growing it as the server would; false when full.</summary>
    public bool Fits(long activeBytes)
    {
        while (activeBytes > SizePages * PageBytes)
        {
            var max = Plan.MaxSizePages < 0 ? 268_435_456 : Plan.MaxSizePages;
            var grow = Math.Min(Plan.GrowthPages, max - SizePages);
            if (Plan.GrowthPages <= 0 || grow <= 0 || grow * PageBytes > VolumeFreeBytes)
            {
                return false;
            }

            Vlfs += VlfsFor(grow * PageBytes, SizePages * PageBytes);
            SizePages += grow;
            VolumeFreeBytes -= grow * PageBytes;
            Growths++;
        }

        return true;
    }

    private static long VlfsFor(long growthBytes, long sizeBytes) =>
        sizeBytes > 0 && growthBytes < sizeBytes / 8 ? 1 : growthBytes <= 64L << 20 ? 4 : growthBytes <= 1L << 30 ? 8 : 16;
}

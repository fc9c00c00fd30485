namespace LogFlushMonitor.Simulation;

/// <summary>
/// An Azure SQL Database as its resource governance shows it: the tier and service objective, the live log-rate cap
/// (sys.dm_user_db_resource_governance primary_max_log_rate), and the part of each log write's latency that I/O
/// governance holds in its queue (io_stall_queued_write_ms). The instance then answers as SQL Database does: its wait
/// stats are the database's (sys.dm_db_wait_stats), and each poll reads the cap and the log write percentage of the
/// last interval (sys.dm_db_resource_stats' avg_log_write_percent).
/// </summary>
/// <param name="Tier">DATABASEPROPERTYEX(DB_NAME(), 'Edition'): GeneralPurpose, BusinessCritical, Hyperscale, ...</param>
/// <param name="ServiceObjective">slo_name.</param>
/// <param name="CapBytesPerSecond">primary_max_log_rate, bytes per second.</param>
/// <param name="QueuedShare">The share of each log write's latency spent in I/O governance's queue (0 to 1).</param>
internal sealed record AzureGovernance(string Tier, string ServiceObjective, long CapBytesPerSecond, double QueuedShare);

/// <summary>
/// An asynchronous secondary whose link carries less log than the primary writes from <paramref name="After"/> on: its
/// send queue grows by the difference and it falls behind by (1 - link / written) seconds every second. Before, it trails
/// by <paramref name="TrailSeconds"/>.
/// </summary>
/// <param name="After">When the link slows, after the simulation start.</param>
/// <param name="LinkBytesPerSecond">What the link carries once slow.</param>
/// <param name="TrailSeconds">How far it trails while the link keeps up.</param>
internal sealed record AsyncLag(TimeSpan After, long LinkBytesPerSecond, double TrailSeconds);

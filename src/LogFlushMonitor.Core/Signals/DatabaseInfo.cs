namespace LogFlushMonitor.Core.Signals;

/// <summary>One row of sys.databases as the poller last read it.</summary>
/// <param name="Id">database_id.</param>
/// <param name="Name">name.</param>
/// <param name="State">state_desc, e.g. ONLINE, OFFLINE, RESTORING.</param>
/// <param name="RecoveryModel">recovery_model_desc.</param>
/// <param name="DelayedDurability">delayed_durability_desc (DISABLED, ALLOWED, FORCED).</param>
/// <param name="AutoClose">is_auto_close_on: the database closes when idle, and its counter rows vanish meanwhile.</param>
/// <param name="IsSnapshot">A database snapshot (source_database_id set): no log, no log counters.</param>
public sealed record DatabaseInfo(int Id, string Name, string State, string RecoveryModel, string? DelayedDurability, bool AutoClose = false, bool IsSnapshot = false);

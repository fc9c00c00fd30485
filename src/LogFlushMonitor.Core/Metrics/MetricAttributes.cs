namespace LogFlushMonitor.Core.Metrics;

/// <summary>
/// Attribute names, aligned with the OpenTelemetry Collector's SQL Server receiver where they overlap so
/// users running both see one vocabulary.
/// </summary>
public static class MetricAttributes
{
    /// <summary>The SQL Server instance as named in configuration.</summary>
    public const string Instance = "sqlserver.instance.name";

    /// <summary>The database name (or "id:N" until the name is known).</summary>
    public const string Database = "sqlserver.database.name";

    /// <summary>
    /// A client application (the XE action client_app_name, or program_name of sys.dm_exec_sessions): one of the top
    /// five per database, or "other".
    /// </summary>
    public const string Application = "sqlserver.application.name";

    /// <summary>
    /// Applications with a value of <see cref="Application"/> of their own per database; the rest share
    /// <see cref="OtherApplication"/>. One bound for every place that names applications: the live WRITELOG and log
    /// writer series, and the offline reports (analyze, report).
    /// </summary>
    public const int TopApplications = 5;

    /// <summary>The <see cref="Application"/> value of every application outside the top, and of waits whose session sent no name.</summary>
    public const string OtherApplication = "other";

    /// <summary>
    /// A statement: its query hash as <c>0x</c> and 16 hex digits (<see cref="Samples.QueryHashes"/>), one of the top five
    /// per database or <see cref="OtherApplication"/> ("other"). A statement's text is never a label value.
    /// </summary>
    public const string QueryHash = "sqlserver.query_hash";

    /// <summary>A wait type, e.g. WRITELOG.</summary>
    public const string WaitType = "wait.type";

    /// <summary>The performance-counter object after the colon, e.g. Databases.</summary>
    public const string CounterObject = "sqlserver.counter.object";

    /// <summary>The performance-counter name, e.g. Log Cache Hit Ratio.</summary>
    public const string CounterName = "sqlserver.counter.name";

    /// <summary>Why events were lost (sequence_gap, channel_full, server_dropped, malformed).</summary>
    public const string LossKind = "loss.kind";

    /// <summary>What an agreement ratio compares: flushes, flushed_bytes, writelog_time, flush_wait_time.</summary>
    public const string Quantity = "quantity";

    /// <summary>An event of the monitor's event session, e.g. log_flush_start.</summary>
    public const string EventName = "event.name";

    /// <summary>The type column of a live-stream row: 0, 1, 2, 3 or other.</summary>
    public const string RowType = "row_type";

    /// <summary>A part of a source: poller, stream, session, histogram.</summary>
    public const string Component = "component";

    /// <summary>The kind of an error (login_failed, permission, timeout, disconnected, ...).</summary>
    public const string ErrorType = "error.type";

    /// <summary>A collection mode: stream or histogram.</summary>
    public const string Mode = "mode";

    /// <summary>A metric family of this monitor, by its OpenTelemetry name (sqlserver.monitor.series.overflow).</summary>
    public const string MetricName = "metric.name";

    /// <summary>An availability group's name (sys.availability_groups.name).</summary>
    public const string AvailabilityGroup = "sqlserver.availability_group.name";

    /// <summary>The instance hosting an availability replica (sys.availability_replicas.replica_server_name).</summary>
    public const string Replica = "sqlserver.replica.name";

    /// <summary>That replica's role: PRIMARY, SECONDARY or RESOLVING (sys.dm_hadr_availability_replica_states.role_desc).</summary>
    public const string ReplicaRole = "sqlserver.replica.role";

    /// <summary>That replica's commit mode: SYNCHRONOUS_COMMIT or ASYNCHRONOUS_COMMIT (availability_mode_desc).</summary>
    public const string AvailabilityMode = "sqlserver.replica.availability_mode";

    /// <summary>
    /// A part of the commit budget (what commits waited on): one of <see cref="Aggregation.CommitParts.Names"/>, a fixed
    /// list (local_flush, io_governance_queue, sync_replica, logbuffer, the log-rate governor's forms).
    /// </summary>
    public const string Part = "part";

    /// <summary>An Azure service tier: DATABASEPROPERTYEX(..., 'Edition') on SQL Database, sys.server_resource_stats.sku on Managed Instance.</summary>
    public const string ServiceTier = "sqlserver.service.tier";

    /// <summary>An Azure service objective: slo_name of sys.dm_user_db_resource_governance (Managed Instance: sku, hardware and vCores).</summary>
    public const string ServiceObjective = "sqlserver.service.objective";

    /// <summary>A Hyperscale component that sets the log rate (role_desc of sys.dm_hs_database_log_rate: Primary, Storage, Replica, ...).</summary>
    public const string LogRateComponent = "sqlserver.log_rate.component";

    /// <summary>
    /// Why the log cannot be reused (truncated), one of the values SQL Server documents for
    /// <c>sys.dm_db_log_stats.log_truncation_holdup_reason</c> and <c>sys.databases.log_reuse_wait_desc</c>
    /// (<see cref="Signals.LogReuseWaits"/>): a bounded set, never the server's free text.
    /// </summary>
    public const string LogReuseWait = "log.reuse_wait";

    /// <summary>A metric exporter: otlp.</summary>
    public const string Exporter = "exporter";

    /// <summary>
    /// The longest attribute value exported. SQL Server names are at most 128 characters (sysname); a longer value
    /// (hostile input, a damaged file) is cut here so one name cannot make every scrape megabytes long.
    /// </summary>
    public const int MaxValueLength = 256;

    private static long _truncated;

    /// <summary>Values cut by <see cref="Limit"/> since the process started (sqlserver.monitor.attributes.truncated).</summary>
    public static long Truncated => Interlocked.Read(ref _truncated);

    /// <summary>
    /// <paramref name="value"/>, or its first <see cref="MaxValueLength"/> characters (counted) when it is longer. Every
    /// name from a source passes here before it becomes an attribute; callers build their tags once per name, not per event.
    /// </summary>
    public static string Limit(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (value.Length <= MaxValueLength)
        {
            return value;
        }

        Interlocked.Increment(ref _truncated);
        // Never split a surrogate pair: the exposition must stay valid UTF-8.
        var length = char.IsHighSurrogate(value[MaxValueLength - 1]) ? MaxValueLength - 1 : MaxValueLength;
        return value[..length];
    }

    /// <summary>A database name to export for a database whose name is not known yet.</summary>
    public static string UnnamedDatabase(int databaseId) => "id:" + databaseId.ToString(System.Globalization.CultureInfo.InvariantCulture);
}

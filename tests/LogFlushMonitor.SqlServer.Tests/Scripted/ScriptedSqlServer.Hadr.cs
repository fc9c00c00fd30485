using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>
/// Availability groups: what <c>sys.dm_hadr_database_replica_states</c> joined to the replicas, groups and replica states
/// answers. By default the instance hosts no availability group and the join answers no rows, no error (Microsoft docs:
/// the view has a row per database "participating in an Always On availability group" hosted here).
/// </summary>
public sealed partial class ScriptedSqlServer
{
    // What DmvSql.HadrReplicaStates returns: CAST(database_id AS int), DB_NAME and the sysname/nvarchar(60) names,
    // the view's bigint queues and rates, secondary_lag_seconds (bigint) and the CAST(DATEDIFF(...) AS bigint) age.
    private static readonly TdsColumn[] ReplicaColumns =
    [
        TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("DatabaseName"), TdsColumn.NVarChar("AvailabilityGroup"), TdsColumn.NVarChar("Replica"),
        TdsColumn.NVarChar("Role"), TdsColumn.NVarChar("AvailabilityMode"), TdsColumn.NVarChar("SynchronizationState"), TdsColumn.Bit("CatalogVisible"),
        TdsColumn.BigInt("LogSendQueueKb"), TdsColumn.BigInt("LogSendRateKbPerSecond"), TdsColumn.BigInt("RedoQueueKb"), TdsColumn.BigInt("RedoRateKbPerSecond"),
        TdsColumn.BigInt("SecondaryLagSeconds"), TdsColumn.BigInt("LastHardenedAgeSeconds"), TdsColumn.BigInt("CommitBehindMs"),
    ];

    /// <summary>The primary database's last_commit_time in <see cref="HostAvailabilityGroup"/> (server-local datetime).</summary>
    public static readonly DateTime PrimaryLastCommit = new(2026, 11, 1, 6, 0, 0, 0, DateTimeKind.Unspecified);

    /// <summary>
    /// The login has no permission on the availability group: sys.availability_groups and sys.availability_replicas show
    /// it no rows (metadata visibility), so the LEFT joins answer the group's id for its name and NULL for the commit mode.
    /// </summary>
    public bool HideAvailabilityGroupCatalog { get; set; }

    /// <summary>The id of ag_sales, as the statement's ISNULL answers it when the catalog hides the name.</summary>
    public const string AgSalesId = "8F2B1C7E-3D4A-4B5C-9E6F-0A1B2C3D4E5F";

    /// <summary>The rows the replica-states join answers (empty: no availability group on this instance).</summary>
    public List<ScriptedReplicaRow> ReplicaRows { get; } = [];

    /// <summary>
    /// This instance (SQLPROD1) is the primary of availability group <c>ag_sales</c> for "sales", with a synchronous-commit
    /// secondary (SQLPROD2, same site) and an asynchronous one (SQLDR1, far away), as a primary's view lists them: its own
    /// database (queues, rates and lag NULL: they describe a secondary's copy) and one row per secondary's copy.
    /// </summary>
    public void HostAvailabilityGroup(long syncSendQueueKb = 12, long asyncSendQueueKb = 48_000)
    {
        lock (_gate)
        {
            var sales = _databases.Single(d => d.Name == "sales");
            ReplicaRows.Clear();
            // last_commit_time as the primary sees each copy: its own, the synchronous secondary 3 ms behind, the
            // asynchronous one 23 s behind (a datetime, so a multiple of 1/300 s: .997 is 3 ms before the second).
            ReplicaRows.Add(new(sales.Id, sales.Name, "ag_sales", "SQLPROD1", "PRIMARY", "SYNCHRONOUS_COMMIT", "SYNCHRONIZED", null, null, null, null, null, 0, PrimaryLastCommit, true));
            ReplicaRows.Add(new(sales.Id, sales.Name, "ag_sales", "SQLPROD2", "SECONDARY", "SYNCHRONOUS_COMMIT", "SYNCHRONIZED", syncSendQueueKb, 5_120, 64, 4_800, 0, 0, PrimaryLastCommit.AddMilliseconds(-3)));
            ReplicaRows.Add(new(sales.Id, sales.Name, "ag_sales", "SQLDR1", "SECONDARY", "ASYNCHRONOUS_COMMIT", "SYNCHRONIZING", asyncSendQueueKb, 2_048, 9_000, 1_500, 23, 21, PrimaryLastCommit.AddSeconds(-23)));
        }
    }

    /// <summary>HADR_SYNC_COMMIT in sys.dm_os_wait_stats grows by <paramref name="tasksPerPoll"/> waits of <paramref name="msPerPoll"/> ms in all per poll.</summary>
    public void SyncCommitWaits(long tasksPerPoll, long msPerPoll)
    {
        lock (_gate)
        {
            _waits["HADR_SYNC_COMMIT"] = new WaitRow(tasksPerPoll, msPerPoll);
        }
    }

    /// <summary>Mirrored write transactions each availability-group database adds per poll (Database Replica object).</summary>
    public long MirroredTransactionsPerPoll { get; set; } = 400;

    /// <summary>Milliseconds of Transaction Delay each availability-group database adds per poll: 2 ms per transaction by default.</summary>
    public long TransactionDelayMsPerPoll { get; set; } = 800;

    private long _mirroredTransactions;
    private long _transactionDelayMs;

    /// <summary>
    /// Under the lock: the Database Replica rows of a counters statement that asks for that object, one instance per
    /// availability-group database (named by the database) and _Total, both counters PERF_COUNTER_BULK_COUNT (cumulative;
    /// public collectors read their deltas, docs/sqlserver.md). None without an availability group.
    /// </summary>
    private IEnumerable<object?[]> ReplicaCounterRows(string text)
    {
        if (ReplicaRows.Count == 0 || !text.Contains("Database Replica", StringComparison.Ordinal))
        {
            return [];
        }

        _mirroredTransactions += MirroredTransactionsPerPoll;
        _transactionDelayMs += TransactionDelayMsPerPoll;
        var obj = Pad(CounterObjectPrefix + ":Database Replica");
        var rows = new List<object?[]>();
        foreach (var instance in ReplicaRows.Select(r => r.DatabaseName).OfType<string>().Distinct(StringComparer.Ordinal).Append("_Total"))
        {
            rows.Add([obj, Pad("Transaction Delay"), Pad(instance), _transactionDelayMs, 272_696_576]);
            rows.Add([obj, Pad("Mirrored Write Transactions/sec"), Pad(instance), _mirroredTransactions, 272_696_576]);
        }

        return rows;
    }

    /// <summary>
    /// The statement's CommitBehindMs for <paramref name="row"/>: NULL on the primary's own row; else the primary row's
    /// last_commit_time (of the same database) minus the row's, DATEDIFF_BIG in milliseconds (2016 and later) or, for SQL
    /// Server 2014's statement, DATEDIFF in seconds (second boundaries crossed) times 1,000; NULL without both times.
    /// </summary>
    private long? CommitBehindMs(ScriptedReplicaRow row, bool milliseconds)
    {
        var primary = ReplicaRows.FirstOrDefault(p => p.IsPrimaryReplica && p.DatabaseId == row.DatabaseId)?.LastCommitTime;
        if (row.IsPrimaryReplica || primary is not { } p || row.LastCommitTime is not { } mine)
        {
            return null;
        }

        return milliseconds
            ? (long)(p - mine).TotalMilliseconds
            : ((p.Ticks / TimeSpan.TicksPerSecond) - (mine.Ticks / TimeSpan.TicksPerSecond)) * 1000;
    }

    private void AddHadrRules() => Server.When("sys.dm_hadr_database_replica_states", r =>
    {
        lock (_gate)
        {
            return Begin(r).ResultSet(ReplicaColumns, ReplicaRows.Select(x => new object?[]
            {
                x.DatabaseId, x.DatabaseName, HideAvailabilityGroupCatalog ? AgSalesId : x.Group, x.Replica, x.Role,
                HideAvailabilityGroupCatalog ? null : x.Mode, x.State, !HideAvailabilityGroupCatalog, x.SendQueueKb, x.SendRateKbps, x.RedoQueueKb, x.RedoRateKbps,
                r.Text.Contains("drs.secondary_lag_seconds", StringComparison.Ordinal) ? x.LagSeconds : null, x.HardenedAgeSeconds,
                CommitBehindMs(x, r.Text.Contains("DATEDIFF_BIG(MILLISECOND", StringComparison.Ordinal)),
            }).ToList());
        }
    });
}

/// <summary>
/// One row of the replica-states join as the scripted server answers it; null is a NULL cell. <see cref="LastCommitTime"/>
/// is the row's last_commit_time and <see cref="IsPrimaryReplica"/> its is_primary_replica, from which the statement's
/// CommitBehindMs is worked out as the server would.
/// </summary>
public sealed record ScriptedReplicaRow(
    int? DatabaseId, string? DatabaseName, string? Group, string? Replica, string? Role, string? Mode, string? State,
    long? SendQueueKb, long? SendRateKbps, long? RedoQueueKb, long? RedoRateKbps, long? LagSeconds, long? HardenedAgeSeconds,
    DateTime? LastCommitTime = null, bool IsPrimaryReplica = false);

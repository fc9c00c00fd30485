namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// The performance-counter object of availability-group databases (Microsoft, "SQL Server, Database Replica object"):
/// one instance per database in a group, named by the database; the two counters of a synchronous commit's remote half.
/// </summary>
public static class DatabaseReplicaCounters
{
    /// <summary>The object after the colon of <c>object_name</c> (<c>SQLServer:Database Replica</c>).</summary>
    public const string Object = "Database Replica";

    /// <summary>Time commits waited for the secondaries' acknowledgement (cumulative milliseconds; on the primary).</summary>
    public const string TransactionDelay = "Transaction Delay";

    /// <summary>Transactions that waited for the log to reach a synchronous secondary before committing (cumulative; on the primary).</summary>
    public const string MirroredWriteTransactions = "Mirrored Write Transactions/sec";
}

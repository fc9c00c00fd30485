using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.Workload;

/// <summary>A problem that ends the run: retrying cannot fix it, or the server stayed unreachable. The message never holds a connection string.</summary>
public sealed class WorkloadException(string message, bool isUsage = false) : Exception(message)
{
    /// <summary>True when the options, not the server, are at fault (e.g. the database exists and is not the workload's).</summary>
    public bool IsUsage { get; } = isUsage;
}

/// <summary>Which failures the workload retries: a deadlock, a lock or command timeout, a lost connection, a database coming back.</summary>
internal static class WorkloadErrors
{
    /// <summary>Worth retrying (counted as an error, not fatal).</summary>
    public static bool IsTransient(Exception e) => e switch
    {
        // 1205 deadlock victim, 1222 lock timeout; 4060/922/927/40613: the database is not available yet (recovery
        // after a restart); 40197/40501: Azure asks to retry.
        SqlException s when s.Number is 1205 or 1222 or 4060 or 922 or 927 or 40613 or 40197 or 40501 => true,
        _ => SqlErrorKinds.Classify(e) is SqlErrorKinds.Disconnected or SqlErrorKinds.Unreachable or SqlErrorKinds.Timeout or SqlErrorKinds.ServerBusy,
    };

    /// <summary>What may be printed about a failure (the server's message, never a connection string).</summary>
    public static string Describe(Exception e) => SqlServerLog.Safe(e);
}

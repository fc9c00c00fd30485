using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Core.Signals;

/// <summary>Log lines of the signals' pollers (event ids of the 500 range, as the SQL Server source's). None carries a connection string.</summary>
internal static partial class SignalLog
{
    [LoggerMessage(EventId = 503, Level = LogLevel.Warning, Message = "{Instance}: database {Database} changed: state {OldState} -> {NewState}, delayed durability {OldDurability} -> {NewDurability}, recovery {OldRecovery} -> {NewRecovery}")]
    public static partial void DatabaseChanged(ILogger logger, string instance, string database, string oldState, string newState, string oldDurability, string newDurability, string oldRecovery, string newRecovery);

    [LoggerMessage(EventId = 504, Level = LogLevel.Information, Message = "{Instance}: database {Database} (id {DatabaseId}) appeared, state {State}")]
    public static partial void DatabaseAppeared(ILogger logger, string instance, string database, int databaseId, string state);

    [LoggerMessage(EventId = 505, Level = LogLevel.Warning, Message = "{Instance}: database {Database} (id {DatabaseId}) is gone (dropped)")]
    public static partial void DatabaseGone(ILogger logger, string instance, string database, int databaseId);

    [LoggerMessage(EventId = 506, Level = LogLevel.Warning, Message = "{Instance}: the server dropped {Buffers} event buffers of session {Session} (events in them are not counted)")]
    public static partial void BuffersDropped(ILogger logger, string instance, string session, long buffers);

    [LoggerMessage(EventId = 502, Level = LogLevel.Information, Message = "{Instance}: polling {Kind} works again")]
    public static partial void KindRecovered(ILogger logger, string instance, string kind);

    [LoggerMessage(EventId = 514, Level = LogLevel.Information, Message = "{Instance}: {Count} performance-counter instances are named by a physical database name that matches no database of sys.databases (on Azure SQL Database: the other databases of an elastic pool); they are not exported. Logged once")]
    public static partial void CounterInstancesUnmatched(ILogger logger, string instance, int count);

    [LoggerMessage(EventId = 515, Level = LogLevel.Error, Message = "{Instance}: sys.dm_os_performance_counters returned no row of the Databases object: this instance's performance counters are not registered (a setup problem; error 3409 in the setup log), so no counter series is exported. Re-register them (lodctr /R, then reinstall the SQL Server counters, on Windows) and restart the instance; waits, file stats and events still work. Logged once while it lasts")]
    public static partial void CountersMissing(ILogger logger, string instance);

    [LoggerMessage(EventId = 516, Level = LogLevel.Warning, Message = "{Instance}: watched databases have no performance counters in two polls running: {Databases}. Check that each is online and named as in sys.databases (IncludeDatabases); their counter series are missing. Logged once per change")]
    public static partial void DatabasesWithoutCounters(ILogger logger, string instance, string databases);

    [LoggerMessage(EventId = 517, Level = LogLevel.Information, Message = "{Instance}: every watched database has performance counters again")]
    public static partial void DatabasesWithCounters(ILogger logger, string instance);

    [LoggerMessage(EventId = 518, Level = LogLevel.Warning, Message = "{Instance}: a row of {Statement} has NULL in {Column}: the row was skipped and counted as malformed (sqlserver.monitor.events.lost, loss.kind=malformed); the rest of the poll goes on. Logged once per column")]
    public static partial void NullCell(ILogger logger, string instance, string statement, string column);

    [LoggerMessage(EventId = 519, Level = LogLevel.Information, Message = "{Instance}: the log file of database_id {DatabaseId} has no database name (DB_NAME() is NULL: dropped between the two catalog reads?): its row was skipped and counted as malformed. Logged once per database_id")]
    public static partial void FileWithoutDatabaseName(ILogger logger, string instance, int databaseId);

    [LoggerMessage(EventId = 540, Level = LogLevel.Information, Message = "{Instance}/{Database}: Query Store: {State}: {Meaning}. Logged when it changes")]
    public static partial void QueryStoreState(ILogger logger, string instance, string database, string state, string meaning);

    [LoggerMessage(EventId = 541, Level = LogLevel.Warning, Message = "{Instance}/{Database}: reading Query Store failed: {Message}; the other databases go on, this one is tried again at the next Query Store poll")]
    public static partial void QueryStoreFailed(ILogger logger, string instance, string database, string message);

    [LoggerMessage(EventId = 520, Level = LogLevel.Warning, Message = "{Instance}: availability groups are there but sys.availability_groups / sys.availability_replicas show this login none of them (metadata visibility): replicas are exported with the group's id for its name and UNKNOWN commit mode. GRANT VIEW ANY DEFINITION (the setup scripts' optional grant) to name them. Logged once")]
    public static partial void AvailabilityGroupsHidden(ILogger logger, string instance);
}

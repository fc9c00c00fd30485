namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// The log held by one application's open transactions in one database at the moment of a poll
/// (<c>sys.dm_tran_database_transactions</c> joined to <c>sys.dm_tran_session_transactions</c> and
/// <c>sys.dm_exec_sessions</c>): the top log writers. A poll delivers at most the top 5 applications per database (by
/// log bytes used) and "other" for the rest, then <see cref="PollCompleted"/> of <see cref="PollKind.LogWriters"/>.
/// </summary>
/// <param name="Instance">The SQL Server instance name.</param>
/// <param name="TimestampUtc">When the poll read it.</param>
/// <param name="DatabaseId">database_id of the transactions.</param>
/// <param name="DatabaseName">The database name.</param>
/// <param name="Application">The sessions' program_name (one of the top 5), or "other".</param>
/// <param name="Transactions">Open transactions of those sessions in the database.</param>
/// <param name="LogBytesUsed">database_transaction_log_bytes_used summed: log written so far by those transactions.</param>
/// <param name="LogBytesReserved">database_transaction_log_bytes_reserved summed: log reserved for them (a rollback's room).</param>
public readonly record struct LogWritersSample(
    string Instance,
    DateTime TimestampUtc,
    int DatabaseId,
    string DatabaseName,
    string Application,
    int Transactions,
    long LogBytesUsed,
    long LogBytesReserved);

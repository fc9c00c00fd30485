namespace LogFlushMonitor.Core.Aggregation;

/// <summary>Statistics of one wait type on one database, from wait events.</summary>
public sealed record WaitSnapshot(string WaitType, long Count, double MeanSeconds, double P95Seconds, double MaxSeconds);

/// <summary>
/// WRITELOG time of one client application on one database, from wait events (the top 5 and "other", as exported):
/// cumulative since monitoring began, or since the application entered the top.
/// </summary>
/// <param name="Application">The application as exported (cut to the attribute length), or "other".</param>
/// <param name="Seconds">WRITELOG seconds.</param>
/// <param name="Waits">WRITELOG waits.</param>
public sealed record ApplicationWriteLog(string Application, double Seconds, long Waits);

/// <summary>
/// WRITELOG time of one statement on one database, from wait events (the top 5 query hashes and "other", as exported):
/// cumulative since monitoring began, or since the statement entered the top.
/// </summary>
/// <param name="QueryHash">The statement's query hash (<c>0x</c> and 16 hex digits), or "other".</param>
/// <param name="Seconds">WRITELOG seconds.</param>
/// <param name="Waits">WRITELOG waits.</param>
/// <param name="Text">Its first 200 characters when Query Store gave them (never a label), else null.</param>
public sealed record StatementWriteLog(string QueryHash, double Seconds, long Waits, string? Text = null);

/// <summary>
/// Log bytes written by one statement in one database, from Query Store (the top 5 query hashes and "other", as
/// exported): cumulative since the monitor first read the database, or since the statement entered the top.
/// </summary>
/// <param name="QueryHash">The statement's query hash, or "other".</param>
/// <param name="LogBytes">Log bytes written.</param>
/// <param name="Executions">Executions.</param>
/// <param name="Text">Its first 200 characters when Query Store gave them, else null.</param>
public sealed record StatementLog(string QueryHash, double LogBytes, long Executions, string? Text = null);

/// <summary>The log held by one application's open transactions in one database at the last transactions poll.</summary>
/// <param name="Application">The program name as exported (cut), or "other".</param>
/// <param name="Transactions">Open transactions that used or reserved log.</param>
/// <param name="LogBytesUsed">Log bytes they used.</param>
/// <param name="LogBytesReserved">Log bytes reserved for them.</param>
public sealed record ApplicationLogWriter(string Application, long Transactions, long LogBytesUsed, long LogBytesReserved);

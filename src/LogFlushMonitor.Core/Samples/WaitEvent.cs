namespace LogFlushMonitor.Core.Samples;

/// <summary>A completed wait attributed to a database (sqlos.wait_completed, or wait_info with opcode end).</summary>
/// <param name="Instance">The SQL Server instance name.</param>
/// <param name="WaitType">Wait type text, e.g. WRITELOG (an interned string from the source's map).</param>
/// <param name="Duration">How long the task waited.</param>
/// <param name="DatabaseId">sqlserver.database_id action.</param>
/// <param name="DatabaseName">sqlserver.database_name action when present.</param>
/// <param name="TimestampUtc">Event time, UTC.</param>
/// <param name="Sequence">package0.event_sequence action, 0 when absent.</param>
/// <param name="ClientApp">
/// sqlserver.client_app_name action when present (interned by the source, at most
/// <see cref="Metrics.MetricAttributes.MaxValueLength"/> + 1 characters); empty when the application sent none.
/// </param>
/// <param name="QueryHash">
/// sqlserver.query_hash action when present (the statement that waited, <see cref="QueryHashes"/>); 0 when the task ran
/// no statement with a hash; null when the event did not carry the action.
/// </param>
public readonly record struct WaitEvent(
    string Instance,
    string WaitType,
    TimeSpan Duration,
    int DatabaseId,
    string? DatabaseName,
    DateTime TimestampUtc,
    long Sequence = 0,
    string? ClientApp = null,
    ulong? QueryHash = null);

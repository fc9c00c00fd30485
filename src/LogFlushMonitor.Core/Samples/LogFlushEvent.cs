namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// One log flush: a <c>sqlserver.log_flush_start</c> event, or a <c>log_flush_complete</c> event when
/// <see cref="IsComplete"/> (then <see cref="Duration"/> is set).
/// </summary>
/// <param name="Instance">The SQL Server instance name as configured (the same string instance for every sample of a source).</param>
/// <param name="DatabaseId">database_id of the event.</param>
/// <param name="DatabaseName">sqlserver.database_name action when the session adds it, otherwise null.</param>
/// <param name="WriteSize">Bytes written by the flush (write_size); 0 when the event has no such field.</param>
/// <param name="LogBlockId">log_block_id of the flushed block.</param>
/// <param name="TimestampUtc">Event time, UTC.</param>
/// <param name="Duration">Flush duration (log_flush_complete only).</param>
/// <param name="Sequence">package0.event_sequence action, 0 when absent.</param>
public readonly record struct LogFlushEvent(
    string Instance,
    int DatabaseId,
    string? DatabaseName,
    uint WriteSize,
    ulong LogBlockId,
    DateTime TimestampUtc,
    TimeSpan? Duration = null,
    long Sequence = 0)
{
    /// <summary>True for log_flush_complete (a duration is known), false for log_flush_start.</summary>
    public bool IsComplete => Duration.HasValue;
}

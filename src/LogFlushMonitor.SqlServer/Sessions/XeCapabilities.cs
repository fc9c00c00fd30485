using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.SqlServer.Sessions;

/// <summary>
/// What the server's XE catalog offers for log-flush monitoring, read at every connection (docs/sqlserver.md: names,
/// fields, map keys and units differ by version and are never assumed).
/// </summary>
public sealed record XeCapabilities
{
    /// <summary>sqlserver.log_flush_start exists.</summary>
    public bool HasFlushStart { get; init; }

    /// <summary>sqlserver.log_flush_complete exists.</summary>
    public bool HasFlushComplete { get; init; }

    /// <summary>log_flush_start has a database_id field (else the sqlserver.database_id action is used).</summary>
    public bool FlushStartHasDatabaseId { get; init; }

    /// <summary>log_flush_start has a write_size field (needed by the histogram mode).</summary>
    public bool FlushStartHasWriteSize { get; init; }

    /// <summary>log_flush_start has a log_block_id field.</summary>
    public bool FlushStartHasLogBlockId { get; init; }

    /// <summary>log_flush_complete has a database_id field.</summary>
    public bool FlushCompleteHasDatabaseId { get; init; }

    /// <summary>The wait event to use: "sqlos.wait_completed" (2014+), "sqlos.wait_info" (end events only), or null.</summary>
    public string? WaitEvent { get; init; }

    /// <summary>The wait_types map key(s) of WRITELOG on this server.</summary>
    public IReadOnlyList<long> WriteLogKeys { get; init; } = [];

    /// <summary>
    /// The wait_types map key(s) of HADR_SYNC_COMMIT on this server, collected with WRITELOG's (the remote half of a
    /// commit on a synchronous availability-group replica); empty where the catalog has none.
    /// </summary>
    public IReadOnlyList<long> HadrSyncCommitKeys { get; init; } = [];

    /// <summary>
    /// The wait_types map keys of LOGBUFFER and the log-rate governor's forms on this server (<c>XeSql.LogWaitKeys</c>),
    /// collected with WRITELOG's so the commit budget reads them per database; empty where the catalog has none.
    /// </summary>
    public IReadOnlyList<long> LogWaitKeys { get; init; } = [];

    /// <summary>The sqlserver.database_id action exists.</summary>
    public bool HasDatabaseIdAction { get; init; }

    /// <summary>The sqlserver.client_app_name action exists (WRITELOG time by application).</summary>
    public bool HasClientAppNameAction { get; init; }

    /// <summary>The sqlserver.query_hash action exists (WRITELOG time by statement).</summary>
    public bool HasQueryHashAction { get; init; }

    /// <summary>The package0.event_sequence action exists (loss accounting).</summary>
    public bool HasEventSequenceAction { get; init; }

    /// <summary>The package0.histogram target exists.</summary>
    public bool HasHistogramTarget { get; init; }

    /// <summary>Units of the duration fields, from the catalog's descriptions where they name one, else milliseconds (docs/sqlserver.md).</summary>
    public XEventUnits Units { get; init; } = new();

    /// <summary>Whether the WRITELOG wait event can be collected (the event and the map key exist).</summary>
    public bool CanCollectWriteLog => WaitEvent is not null && WriteLogKeys.Count > 0 && HasDatabaseIdAction;

    /// <summary>
    /// The unit a field description names ("microseconds", "milliseconds", "(us)", "(ms)"), or
    /// <paramref name="fallback"/> when it names none: the same rule a .xel file's own descriptions go through
    /// (<see cref="DurationUnits.Named"/>).
    /// </summary>
    public static DurationUnit UnitFromDescription(string? description, DurationUnit fallback) =>
        DurationUnits.Named(description) ?? fallback;
}

using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Simulation;

/// <summary>Azure's resource governance and the asynchronous secondary's link, as the simulated instance answers them.</summary>
internal sealed partial class SimulatedInstance
{
    private const string LogRateGovernor = "LOG_RATE_GOVERNOR";

    private long _governorTasks;
    private long _governorTicks;
    private long _governorMaxTicks;

    /// <summary>The Azure SQL Database this instance stands for, or null for a SQL Server.</summary>
    public AzureGovernance? Azure { get; }

    /// <summary>
    /// A session of <paramref name="db"/> waited <paramref name="waitUs"/> on LOG_RATE_GOVERNOR from <paramref name="ticks"/>:
    /// the wait event (the session collects the governor's waits per database) and the wait stats.
    /// </summary>
    public void GovernorWait(SimulatedDatabase db, long ticks, long waitUs, ISampleSink sink)
    {
        var waitTicks = waitUs * 10;
        db.GovernorWaits++;
        db.GovernorTicks += waitTicks;
        _governorTasks++;
        _governorTicks += waitTicks;
        _governorMaxTicks = Math.Max(_governorMaxTicks, waitTicks);
        if (Deliver(sink, out var seq))
        {
            sink.OnWait(new WaitEvent(Name, LogRateGovernor, TimeSpan.FromTicks(waitTicks), db.Id, db.Name, new DateTime(ticks + waitTicks, DateTimeKind.Utc), seq));
        }
    }

    /// <summary>
    /// The wait stats rows: on a SQL Server the instance's; on Azure SQL Database the database's (sys.dm_db_wait_stats names
    /// it), with the log-rate governor's row.
    /// </summary>
    private WaitStatsRow[] WaitStatsRows()
    {
        const long Ms = TimeSpan.TicksPerMillisecond;
        var database = Azure is null ? null : _databases.FirstOrDefault()?.Name;
        WaitStatsRow[] rows =
        [
            new(WriteLog, _writeLogTasks, _writeLogTicks / Ms, _writeLogMaxTicks / Ms, _writeLogSignalTicks / Ms, database),
            new(LogBuffer, _logBufferTasks, _logBufferTicks / Ms, _logBufferMaxTicks / Ms, 0, database),
            new(HadrSyncCommit, _hadrTasks, _hadrTicks / Ms, _hadrMaxTicks / Ms, 0, database),
        ];
        return Azure is null ? rows : [.. rows, new(LogRateGovernor, _governorTasks, _governorTicks / Ms, _governorMaxTicks / Ms, 0, database)];
    }

    /// <summary>
    /// Azure SQL Database's governance at a poll: the cap, tier and objective, and the log write percentage of the cap over
    /// the interval since the last poll (what sys.dm_db_resource_stats' newest 15-second row holds).
    /// </summary>
    private void PollGovernance(DateTime t, ISampleSink sink)
    {
        if (Azure is not { } azure)
        {
            return;
        }

        var rows = new List<LogRateRow>();
        foreach (var db in _databases)
        {
            var (bytes, at) = db.AtLastGovernancePoll;
            double? percent = bytes < 0 || t.Ticks <= at ? null
                : 100.0 * (db.BytesFlushed - bytes) / ((t.Ticks - at) / (double)TimeSpan.TicksPerSecond) / azure.CapBytesPerSecond;
            db.AtLastGovernancePoll = (db.BytesFlushed, t.Ticks);
            rows.Add(new LogRateRow(LogRateSignal.DatabaseScope, db.Name, azure.Tier, azure.ServiceObjective, azure.CapBytesPerSecond,
                percent is { } p ? Math.Round(p, 2) : null)); // decimal(5,2), as the view holds it
        }

        sink.OnBatch(SignalRegistry.LogRate.Batch(Name, t, [.. rows], endsPoll: true));
    }

    /// <summary>
    /// The asynchronous secondary's row: trailing by a few seconds, or with a slow link (<see cref="AsyncLag"/>) sent the
    /// link's rate only, so that its queue grows by what the link cannot carry and its time behind is the queue over the
    /// rate the primary writes.
    /// </summary>
    private ReplicaRow AsynchronousRow(SimulatedDatabase db, SyncReplica r, DateTime t, long sendQueueKb)
    {
        if (r.AsyncLag is not { } lag)
        {
            return new ReplicaRow(db.Id, db.Name, r.Group, r.Asynchronous, "SECONDARY", "ASYNCHRONOUS_COMMIT", "SYNCHRONIZING",
                6_000 + sendQueueKb, 1_800, 2_000, 3_000, 3, 3, 3_000);
        }

        var (sent, bytes, at) = db.AsyncLink;
        var seconds = sent < 0 ? 0 : (t.Ticks - at) / (double)TimeSpan.TicksPerSecond;
        var writtenPerSecond = seconds > 0 ? (db.BytesFlushed - bytes) / seconds : 0;
        var slow = t.Ticks - SimulationStartTicks >= lag.After.Ticks;
        sent = sent < 0 || !slow
            ? db.BytesFlushed - (long)(lag.TrailSeconds * writtenPerSecond)
            : Math.Min(db.BytesFlushed, sent + (long)(lag.LinkBytesPerSecond * seconds));
        db.AsyncLink = (sent, db.BytesFlushed, t.Ticks);
        var queue = Math.Max(0, db.BytesFlushed - sent);
        var behindMs = writtenPerSecond > 0 ? (long)(1000.0 * queue / writtenPerSecond) : (long)(lag.TrailSeconds * 1000);
        var rateKb = (slow ? lag.LinkBytesPerSecond : (long)writtenPerSecond) / 1024;
        return new ReplicaRow(db.Id, db.Name, r.Group, r.Asynchronous, "SECONDARY", "ASYNCHRONOUS_COMMIT", "SYNCHRONIZING",
            queue / 1024, rateKb, 2_000, 3_000, behindMs / 1000, behindMs / 1000, behindMs);
    }

    private void ResetGovernance() => _governorTasks = _governorTicks = _governorMaxTicks = 0;
}

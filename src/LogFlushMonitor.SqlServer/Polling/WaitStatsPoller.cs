using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>Reads the log waits of sys.dm_os_wait_stats (WRITELOG, LOGBUFFER, the LOG_RATE_GOVERNOR family).</summary>
internal sealed class WaitStatsPoller(PollContext context, ILogger logger, bool azure = false)
{
    private readonly NullCells _nulls = new(context, logger, azure ? "sys.dm_db_wait_stats" : "sys.dm_os_wait_stats");

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = azure
            ? await connection.QueryAsync<WaitRow>(DmvSql.AzureWaitStats, new { waitTypes = DmvSql.LogWaitTypes, cancellationToken }, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<WaitRow>(DmvSql.WaitStats, new { waitTypes = DmvSql.LogWaitTypes, cancellationToken }, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false);
        var now = context.UtcNow;
        foreach (var r in rows)
        {
            if (_nulls.Skip(("wait_type", r.WaitType is null), ("waiting_tasks_count", r.WaitingTasks is null), ("wait_time_ms", r.WaitTimeMs is null),
                ("max_wait_time_ms", r.MaxWaitTimeMs is null), ("signal_wait_time_ms", r.SignalWaitTimeMs is null)))
            {
                continue;
            }

            context.Sink.OnWaitStats(new WaitStatsSample(context.Instance, now, r.WaitType!.Trim(), r.WaitingTasks!.Value, r.WaitTimeMs!.Value, r.MaxWaitTimeMs!.Value, r.SignalWaitTimeMs!.Value));
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.WaitStats));
    }

    /// <summary>One row as read: every cell nullable, so a NULL is seen and skipped (<see cref="NullCells"/>), not thrown.</summary>
    internal sealed class WaitRow
    {
        public string? WaitType { get; set; }

        public long? WaitingTasks { get; set; }

        public long? WaitTimeMs { get; set; }

        public long? MaxWaitTimeMs { get; set; }

        public long? SignalWaitTimeMs { get; set; }
    }
}

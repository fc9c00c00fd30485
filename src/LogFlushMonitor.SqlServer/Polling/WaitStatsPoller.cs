using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>Reads the log waits of sys.dm_os_wait_stats (WRITELOG, LOGBUFFER, the LOG_RATE_GOVERNOR family).</summary>
internal sealed class WaitStatsPoller(PollContext context, bool azure = false)
{
    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = azure
            ? await connection.QueryAsync<WaitRow>(DmvSql.AzureWaitStats, new { waitTypes = DmvSql.LogWaitTypes, cancellationToken }, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<WaitRow>(DmvSql.WaitStats, new { waitTypes = DmvSql.LogWaitTypes, cancellationToken }, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false);
        var now = context.UtcNow;
        foreach (var r in rows)
        {
            context.Sink.OnWaitStats(new WaitStatsSample(context.Instance, now, r.WaitType.Trim(), r.WaitingTasks, r.WaitTimeMs, r.MaxWaitTimeMs, r.SignalWaitTimeMs));
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.WaitStats));
    }

    internal sealed class WaitRow
    {
        public string WaitType { get; set; } = "";

        public long WaitingTasks { get; set; }

        public long WaitTimeMs { get; set; }

        public long MaxWaitTimeMs { get; set; }

        public long SignalWaitTimeMs { get; set; }
    }
}

using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads sqlserver_start_time at every poll and delivers it as a <see cref="ServerStartSample"/>; Core decides
/// whether the instance restarted. The server stores the time in local time: while the local value stays the
/// same the UTC value first read is kept, so a daylight-saving change is not mistaken for a restart.
/// </summary>
internal sealed class ServerStartPoller(PollContext context)
{
    private DateTime _lastLocal;
    private DateTime _lastUtc;

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = (await connection.QueryAsync<StartRow>(
            DmvSql.ServerStart, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)).AsList();
        if (rows.Count == 0)
        {
            return;
        }

        var row = rows[0];
        if (row.StartTimeLocal != _lastLocal)
        {
            _lastLocal = row.StartTimeLocal;
            _lastUtc = DateTime.SpecifyKind(row.StartTimeUtc, DateTimeKind.Utc);
        }

        context.Sink.OnServerStart(new ServerStartSample(context.Instance, context.UtcNow, _lastUtc));
    }

    internal sealed class StartRow
    {
        public DateTime StartTimeLocal { get; set; }

        public DateTime StartTimeUtc { get; set; }
    }
}

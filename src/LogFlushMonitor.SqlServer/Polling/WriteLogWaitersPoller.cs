using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads the sessions waiting on WRITELOG now (<see cref="DmvSql.WriteLogWaiters"/>) and delivers one
/// <see cref="WriteLogWaitersSample"/> per watched database, 0 sessions where none waits: "measured, nobody waits"
/// must read differently from "not measured", and a stall's end must show. The databases come from the last
/// sys.databases read of the same poll; on Azure SQL Database the statement answers for its one database.
/// </summary>
internal sealed class WriteLogWaitersPoller(PollContext context, DatabaseFilter filter, bool azure, Func<IReadOnlyList<DatabaseInfo>> databases)
{
    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = azure
            ? await connection.QueryAsync<WaiterRow>(DmvSql.AzureWriteLogWaiters, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<WaiterRow>(DmvSql.WriteLogWaiters, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false);
        var now = context.UtcNow;
        var waiting = new Dictionary<int, WaiterRow>();
        foreach (var r in rows)
        {
            // DB_NAME is NULL for a database dropped since the request started: nothing to attribute it to.
            if (r.DatabaseName is not null && filter.Watches(r.DatabaseName))
            {
                waiting[r.DatabaseId] = r;
            }
        }

        foreach (var db in databases())
        {
            // A database snapshot has no log of its own: nobody waits on it.
            if (filter.Watches(db.Name) && !db.IsSnapshot)
            {
                var w = waiting.Remove(db.Id, out var row) ? row : null;
                context.Sink.OnWriteLogWaiters(new WriteLogWaitersSample(context.Instance, now, db.Id, db.Name, w?.Sessions ?? 0, w?.LongestWaitMs ?? 0));
            }
        }

        // A database the catalog read did not list (created since; Azure, where there is no catalog read).
        foreach (var r in waiting.Values)
        {
            context.Sink.OnWriteLogWaiters(new WriteLogWaitersSample(context.Instance, now, r.DatabaseId, r.DatabaseName!, r.Sessions, r.LongestWaitMs));
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.WriteLogWaiters));
    }

    internal sealed class WaiterRow
    {
        public int DatabaseId { get; set; }

        public string? DatabaseName { get; set; }

        public int Sessions { get; set; }

        public long LongestWaitMs { get; set; }
    }
}

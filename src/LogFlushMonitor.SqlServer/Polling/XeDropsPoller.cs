using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads dropped_event_count and dropped_buffer_count of our event session and delivers increases of the first as
/// <see cref="LossKind.ServerDropped"/>. The first reading is a baseline (drops from before we watched are not
/// ours to count); a new create_time or a lower count means the session (or the server) restarted, and then
/// everything since is new. Dropped buffers hold an unknown number of events: they are logged, not counted.
/// </summary>
internal sealed class XeDropsPoller(PollContext context, string sessionName, bool databaseScoped, ILogger logger)
{
    private (DateTime CreateTime, long Events, long Buffers)? _last;

    /// <summary>Buffers the server dropped since we started watching.</summary>
    public long DroppedBuffers { get; private set; }

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = (databaseScoped
            ? await connection.QueryAsync<DropRow>(DmvSql.XeDatabaseSessionDrops, new { name = sessionName, cancellationToken }, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<DropRow>(DmvSql.XeSessionDrops, new { name = sessionName, cancellationToken }, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)).AsList();
        if (rows.Count == 0)
        {
            return; // Not running now: the session manager owns that; the next reading after it starts counts from zero.
        }

        var row = rows[0];
        long newEvents, newBuffers;
        if (_last is not { } last)
        {
            newEvents = newBuffers = 0;
        }
        else if (row.CreateTime != last.CreateTime || row.DroppedEvents < last.Events || row.DroppedBuffers < last.Buffers)
        {
            newEvents = row.DroppedEvents;
            newBuffers = row.DroppedBuffers;
        }
        else
        {
            newEvents = row.DroppedEvents - last.Events;
            newBuffers = row.DroppedBuffers - last.Buffers;
        }

        _last = (row.CreateTime, row.DroppedEvents, row.DroppedBuffers);
        if (newEvents > 0)
        {
            context.Sink.OnSourceLoss(context.Instance, LossKind.ServerDropped, newEvents);
        }

        if (newBuffers > 0)
        {
            DroppedBuffers += newBuffers;
            SqlServerLog.BuffersDropped(logger, context.Instance, sessionName, newBuffers);
        }
    }

    internal sealed class DropRow
    {
        public DateTime CreateTime { get; set; }

        public long DroppedEvents { get; set; }

        public long DroppedBuffers { get; set; }
    }
}

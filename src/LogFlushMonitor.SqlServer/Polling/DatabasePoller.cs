using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads sys.databases: keeps the names and ids of the instance's databases, and logs a line when a watched
/// database changes state (online, offline, restoring...), delayed durability or recovery model, or disappears.
/// </summary>
internal sealed class DatabasePoller(PollContext context, DatabaseFilter filter, ILogger logger)
{
    private Dictionary<int, DatabaseInfo>? _last;

    /// <summary>The databases as last read (all of them, watched or not).</summary>
    public IReadOnlyList<DatabaseInfo> Databases { get; private set; } = [];

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = (await connection.QueryAsync<DatabaseInfo>(DmvSql.Databases, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)).AsList();
        var current = rows.ToDictionary(d => d.Id);
        if (_last is not null)
        {
            foreach (var db in rows.Where(d => filter.Watches(d.Name)))
            {
                if (!_last.TryGetValue(db.Id, out var before) || before.Name != db.Name)
                {
                    SqlServerLog.DatabaseAppeared(logger, context.Instance, db.Name, db.Id, db.State);
                }
                else if (before.State != db.State || before.DelayedDurability != db.DelayedDurability || before.RecoveryModel != db.RecoveryModel)
                {
                    SqlServerLog.DatabaseChanged(logger, context.Instance, db.Name, before.State, db.State,
                        before.DelayedDurability ?? "", db.DelayedDurability ?? "", before.RecoveryModel, db.RecoveryModel);
                }
            }

            foreach (var gone in _last.Values.Where(d => !current.ContainsKey(d.Id) && filter.Watches(d.Name)))
            {
                SqlServerLog.DatabaseGone(logger, context.Instance, gone.Name, gone.Id);
            }
        }

        // Names for series keyed by database_id (the event session carries ids only).
        foreach (var db in rows.Where(d => filter.Watches(d.Name)))
        {
            context.Sink.OnDatabaseName(new DatabaseNameSample(context.Instance, context.UtcNow, db.Id, db.Name));
        }

        _last = current;
        Databases = rows;
    }
}

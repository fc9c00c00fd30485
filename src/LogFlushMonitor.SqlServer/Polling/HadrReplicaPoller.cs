using System.Data.Common;
using System.Globalization;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads the availability-group databases of the instance and their replicas (<see cref="DmvSql.HadrReplicaStates"/>)
/// and delivers one <see cref="HadrReplicaSample"/> per row of a watched database. An instance without availability
/// groups answers no rows: no sample, no error, no log line. SQL Server 2014 (major version 12) has no
/// secondary_lag_seconds and gets the statement without it.
/// </summary>
internal sealed class HadrReplicaPoller(PollContext context, DatabaseFilter filter, ILogger logger)
{
    private readonly NullCells _nulls = new(context, logger, "sys.dm_hadr_database_replica_states");
    private bool _hiddenLogged;

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = HasSecondaryLag(connection.ServerVersion)
            ? await connection.QueryAsync<ReplicaRow>(DmvSql.HadrReplicaStates, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<ReplicaRow>(DmvSql.HadrReplicaStates2014, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false);
        var now = context.UtcNow;
        foreach (var r in rows)
        {
            // DB_NAME is NULL for a database dropped since; the group and replica names are the series' identity.
            if (_nulls.Skip(("database name", r.DatabaseName is null), ("availability group name", r.AvailabilityGroup is null),
                ("replica_server_name", r.Replica is null)))
            {
                continue;
            }

            if (!filter.Watches(r.DatabaseName!))
            {
                continue;
            }

            if (!r.CatalogVisible && !_hiddenLogged)
            {
                // Not an error: the figures are real, only the group's name and the commit mode are hidden.
                _hiddenLogged = true;
                SqlServerLog.AvailabilityGroupsHidden(logger, context.Instance);
            }

            context.Sink.OnHadrReplica(new HadrReplicaSample(context.Instance, now, r.DatabaseId, r.DatabaseName!, r.AvailabilityGroup!, r.Replica!,
                r.Role ?? UnknownRole, r.AvailabilityMode ?? UnknownRole, r.SynchronizationState, NonNegative(r.LogSendQueueKb), NonNegative(r.LogSendRateKbPerSecond),
                NonNegative(r.RedoQueueKb), NonNegative(r.RedoRateKbPerSecond), NonNegative(r.SecondaryLagSeconds), NonNegative(r.LastHardenedAgeSeconds)));
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.HadrReplicas));
    }

    /// <summary>A role or commit mode the login cannot see (a secondary knows only its own replica's role; the catalog hides the mode).</summary>
    internal const string UnknownRole = "UNKNOWN";

    /// <summary>
    /// secondary_lag_seconds exists from SQL Server 2016 (13.x) on (Microsoft docs of the view). An unreadable version
    /// string takes the newer statement: a server older than 2014 is not supported at all.
    /// </summary>
    internal static bool HasSecondaryLag(string? serverVersion)
    {
        var dot = serverVersion?.IndexOf('.', StringComparison.Ordinal) ?? -1;
        return dot <= 0 || !int.TryParse(serverVersion.AsSpan(0, dot), NumberStyles.None, CultureInfo.InvariantCulture, out var major) || major >= 13;
    }

    // A clock step between two reads can make an age negative; a queue or rate never is.
    private static long? NonNegative(long? value) => value is { } v ? Math.Max(0, v) : null;

    internal sealed class ReplicaRow
    {
        public int DatabaseId { get; set; }

        public string? DatabaseName { get; set; }

        public string? AvailabilityGroup { get; set; }

        public string? Replica { get; set; }

        public string? Role { get; set; }

        public string? AvailabilityMode { get; set; }

        public string? SynchronizationState { get; set; }

        public bool CatalogVisible { get; set; }

        public long? LogSendQueueKb { get; set; }

        public long? LogSendRateKbPerSecond { get; set; }

        public long? RedoQueueKb { get; set; }

        public long? RedoRateKbPerSecond { get; set; }

        public long? SecondaryLagSeconds { get; set; }

        public long? LastHardenedAgeSeconds { get; set; }
    }
}

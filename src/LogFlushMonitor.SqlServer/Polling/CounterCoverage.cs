using System.Data.Common;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;
using Microsoft.Extensions.Logging.Abstractions;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// What <c>check</c> says about the counters, from the poll's own statements: whether the instance has any (an
/// instance whose counters were not registered returns none) and which watched databases have none.
/// </summary>
internal static class CounterCoverage
{
    /// <summary>A problem (no counters at all) and a warning (watched databases without counters), each null when fine.</summary>
    public static async Task<(string? Problem, string? Warning)> CheckAsync(SqlServerInstanceOptions instance, DbConnection connection, int commandTimeoutSeconds, CancellationToken cancellationToken)
    {
        var settings = new SignalSettings(new DatabaseFilter(instance.IncludeDatabases, instance.ExcludeDatabases), CounterSelection.Default, instance.SessionName, ConfirmMissingCounters: false);
        var context = new PollContext(instance.Name, DiscardingSink.Instance, TimeProvider.System, commandTimeoutSeconds, NullLogger.Instance, settings);
        var server = ServerProfile.Of(instance.Azure, connection.ServerVersion);
        if (!instance.Azure)
        {
            context.Databases = await DatabasesSignal.ReadAsync(connection, context, cancellationToken).ConfigureAwait(false);
        }

        var counters = CountersSignal.NewCheckPoller(context, server);
        await counters.PollAsync(connection, cancellationToken).ConfigureAwait(false);
        return counters.ObjectRows == 0
            ? ("sys.dm_os_performance_counters has no row of the Databases object: this instance's performance counters are not registered (a setup problem, error 3409 in the setup log), so no counter will be exported. Re-register them (on Windows: lodctr /R, then the SQL Server counters) and restart the instance.", null)
            : (null, counters.MissingDatabases.Count > 0
                ? $"watched databases without performance counters: {string.Join(", ", counters.MissingDatabases)}; check that each is online and named as in sys.databases."
                : null);
    }
}

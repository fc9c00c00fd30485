using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>What every poll of one instance shares: the open connection, the timeout, the sink and the clock.</summary>
internal sealed class PollContext(string instance, IPollSink sink, TimeProvider time, int commandTimeoutSeconds)
{
    /// <summary>The instance name as configured (exported as sqlserver.instance.name).</summary>
    public string Instance { get; } = instance;

    public IPollSink Sink { get; } = sink;

    public TimeProvider Time { get; } = time;

    /// <summary>Now, as stamped on the samples of a poll.</summary>
    public DateTime UtcNow => Time.GetUtcNow().UtcDateTime;

    /// <summary>Runs one statement through Dapper with the configured timeout and the caller's cancellation.</summary>
    public async Task<List<T>> QueryAsync<T>(DbConnection connection, string sql, object? parameters, CancellationToken cancellationToken)
    {
        var command = new CommandDefinition(sql, parameters, commandTimeout: commandTimeoutSeconds, cancellationToken: cancellationToken);
        var rows = await connection.QueryAsync<T>(command).ConfigureAwait(false);
        return rows.AsList();
    }
}

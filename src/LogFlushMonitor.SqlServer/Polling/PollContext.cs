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

    /// <summary>
    /// The command timeout of every poll statement. Each poller calls Dapper itself with its row and parameter types
    /// written out, as Dapper.AOT generates code only for calls whose types it sees (not through a generic helper).
    /// </summary>
    public int CommandTimeoutSeconds { get; } = commandTimeoutSeconds;
}

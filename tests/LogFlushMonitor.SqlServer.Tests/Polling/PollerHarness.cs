using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>An <see cref="InstancePoller"/> wired to a scripted server, a recording sink and a capturing logger.</summary>
internal sealed class PollerHarness : IAsyncDisposable
{
    public PollerHarness(ScriptedSqlServer server, Action<SqlServerInstanceOptions>? configure = null, ISampleSink? next = null, ManualTimeProvider? time = null, Action<SqlServerSourceOptions>? fleet = null)
    {
        Server = server;
        Time = time ?? new ManualTimeProvider();
        Sink = new RecordingSink(next);
        Logger = new CapturingLogger(Time);
        Health = new SourceHealth(Time);
        Options = new SqlServerInstanceOptions { Name = "prod-1", ConnectionString = server.ConnectionString() };
        configure?.Invoke(Options);
        // Generous: a loaded CI machine (2 cores, parallel test classes) once took over 2 s for one scripted poll.
        Fleet = new SqlServerSourceOptions { CommandTimeout = TimeSpan.FromSeconds(30) };
        fleet?.Invoke(Fleet);
        Poller = new InstancePoller(SqlServerDataSource.Create(Options, Fleet), Fleet, Sink, Health, Logger, Time);
    }

    public ScriptedSqlServer Server { get; }

    public ManualTimeProvider Time { get; }

    public RecordingSink Sink { get; }

    public CapturingLogger Logger { get; }

    public SourceHealth Health { get; }

    public SqlServerInstanceOptions Options { get; }

    public SqlServerSourceOptions Fleet { get; }

    public InstancePoller Poller { get; }

    /// <summary>One poll, then the clock moves on by the default interval.</summary>
    public async Task PollAsync()
    {
        await Poller.PollOnceAsync(CancellationToken.None);
        Time.Advance(TimeSpan.FromSeconds(15));
    }

    /// <summary>A poll after the server cut our connection: the first attempt may fail (and discard it), the next reconnects.</summary>
    public async Task PollAfterCutAsync()
    {
        try
        {
            await Poller.PollOnceAsync(CancellationToken.None);
        }
        catch (Microsoft.Data.SqlClient.SqlException)
        {
            await Poller.PollOnceAsync(CancellationToken.None);
        }

        Time.Advance(TimeSpan.FromSeconds(15));
    }

    public ValueTask DisposeAsync() => Poller.DisposeAsync();
}

using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Streaming;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging.Abstractions;

namespace LogFlushMonitor.Workload;

/// <summary>
/// The event session of <c>workload --overhead</c>: made as the monitor makes its own (the same events, predicates and
/// options, <see cref="EventSessionManager.BuildStreamSessionDdl"/>) under a name of its own
/// (<see cref="WorkloadOptions.OverheadSessionName"/>), started with its live stream read and thrown away as the monitor
/// reads it, and dropped when the phase ends. The monitor's own session is never touched: stopping it would make a
/// running monitor start it again mid-measurement.
/// </summary>
internal sealed class OverheadSession : IAsyncDisposable
{
    private readonly WorkloadOptions _options;
    private readonly EventSessionManager _sessions;
    private readonly int _timeout;
    private SqlConnection? _stream;
    private EventStreamReader? _reader;
    private Task? _reading;
    private CancellationTokenSource? _stop;

    public OverheadSession(WorkloadOptions options, int commandTimeoutSeconds)
    {
        _options = options;
        _timeout = commandTimeoutSeconds;
        var instance = options.Server.Options;
        Name = options.OverheadSessionName;
        _sessions = new EventSessionManager(new SqlServerInstanceOptions
        {
            Name = instance.Name, SessionName = Name, Azure = instance.Azure, DropSessionOnStop = true, MaxMemoryKb = instance.MaxMemoryKb,
            MaxDispatchLatencySeconds = instance.MaxDispatchLatencySeconds, IncludeDatabases = instance.IncludeDatabases, ExcludeDatabases = instance.ExcludeDatabases,
        }) { CommandTimeoutSeconds = commandTimeoutSeconds };
    }

    /// <summary>The session's name.</summary>
    public string Name { get; }

    /// <summary>Whether the monitor's own session runs now (then it costs the same in both phases: the comparison leaves it out).</summary>
    public async Task<bool> MonitorSessionRunsAsync(CancellationToken ct)
    {
        await using var connection = await OpenAsync(ct).ConfigureAwait(false);
        return await _sessions.IsRunningAsync(connection, _options.Server.Options.SessionName, ct).ConfigureAwait(false);
    }

    /// <summary>Makes sure the session does not exist (a run stopped before it could drop it leaves it behind).</summary>
    public async Task DropAsync(CancellationToken ct)
    {
        await StopReadingAsync().ConfigureAwait(false);
        await using var connection = await OpenAsync(ct).ConfigureAwait(false);
        await _sessions.StopAsync(connection, Name, ct).ConfigureAwait(false);
    }

    /// <summary>Creates and starts the session as the monitor does, and reads its live stream on a connection of its own.</summary>
    public async Task StartAsync(CancellationToken ct)
    {
        await using (var connection = await OpenAsync(ct).ConfigureAwait(false))
        {
            var capabilities = await _sessions.ReadCapabilitiesAsync(connection, ct).ConfigureAwait(false);
            var databases = await _sessions.ResolveDatabasesAsync(connection, ct).ConfigureAwait(false);
            await _sessions.EnsureAsync(connection, Name, () => _sessions.BuildStreamSessionDdl(capabilities, databases), ct).ConfigureAwait(false);
        }

        _stream = await OpenAsync(ct).ConfigureAwait(false);
        _reader = new EventStreamReader(_options.Server.Name, DiscardingSink.Instance, initialBufferBytes: 64 * 1024);
        _stop = new CancellationTokenSource();
        var (reader, stream, stop) = (_reader, _stream, _stop.Token);
        _reading = Task.Factory.StartNew(() => reader.Read(stream, Name, stop), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    /// <summary>What the server measured the session cost so far (<see cref="XeSessionCostSignal"/>), for a person.</summary>
    public async Task<string> CostAsync(CancellationToken ct)
    {
        await using var connection = await OpenAsync(ct).ConfigureAwait(false);
        var server = ServerProfile.Of(_options.Server.Options.Azure, connection.ServerVersion);
        var context = new PollContext(_options.Server.Name, DiscardingSink.Instance, _options.Time, _timeout, NullLogger.Instance, SignalSettings.Default);
        var rows = await XeSessionCostSignal.ReadAsync(connection, context, server, Name, ct).ConfigureAwait(false);
        var described = XeSessionCostSignal.Describe(rows, server);
        return _reader is { } r ? $"{described}; its live stream sent {r.Rows.Total:N0} row(s), {r.BytesRead:N0} bytes, read and thrown away" : described;
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            await DropAsync(CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is SqlException or InvalidOperationException or WorkloadException)
        {
            // The server is gone; the session dies with it, or a DBA drops it by its name (the workload says it on error).
        }
    }

    private async Task StopReadingAsync()
    {
        if (_stop is null)
        {
            return;
        }

        await _stop.CancelAsync().ConfigureAwait(false);
        try
        {
            await (_reading ?? Task.CompletedTask).WaitAsync(TimeSpan.FromSeconds(30)).ConfigureAwait(false);
        }
        catch (Exception e) when (e is SqlException or InvalidOperationException or IOException or TimeoutException or OperationCanceledException)
        {
            // The stream ends with its cancelled command, or its connection.
        }

        _reader?.Dispose();
        if (_stream is { } stream)
        {
            await stream.DisposeAsync().ConfigureAwait(false);
        }

        _stop.Dispose();
        (_stop, _reading, _reader, _stream) = (null, null, null, null);
    }

    private Task<SqlConnection> OpenAsync(CancellationToken ct) => _options.Server.OpenAsync(ct);
}

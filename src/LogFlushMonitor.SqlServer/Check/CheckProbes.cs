using System.Data;
using Dapper;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.SqlServer.Streaming;
using LogFlushMonitor.XEvent.Binary;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging.Abstractions;

namespace LogFlushMonitor.SqlServer.Check;

/// <summary>
/// What <c>check</c> proves by doing rather than asking: every statement <c>run</c> sends, sent once. HAS_PERMS_BY_NAME
/// can say yes where a statement still fails (a permission held at the wrong scope, an edition that wants more, as
/// <c>sys.dm_os_performance_counters</c> on Azure SQL Database Basic and Standard), so each failure is reported by
/// the statement that failed and the server's own words.
/// </summary>
internal static class CheckProbes
{
    /// <summary>
    /// The temporary event session of <c>check</c> and <c>check --capture</c> beside the instance's own: its name (the
    /// instance's session name plus <c>_check</c>) and its manager (dropped on stop, a one-second dispatch latency).
    /// </summary>
    public static (string Name, EventSessionManager Sessions) TemporarySession(SqlServerInstanceOptions instance, int commandTimeoutSeconds)
    {
        var name = instance.SessionName + "_check";
        var options = new SqlServerInstanceOptions
        {
            Name = instance.Name, SessionName = name, Azure = instance.Azure, DropSessionOnStop = true, MaxMemoryKb = instance.MaxMemoryKb,
            MaxDispatchLatencySeconds = 1, IncludeDatabases = instance.IncludeDatabases, ExcludeDatabases = instance.ExcludeDatabases,
        };
        return (name, new EventSessionManager(options) { CommandTimeoutSeconds = commandTimeoutSeconds });
    }

    /// <summary>How long the live stream is held open (a working stream blocks; an unusable one fails at once).</summary>
    internal static TimeSpan StreamProbe { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>
    /// Runs every signal's poll once on <paramref name="connection"/> as <c>run</c> would, and adds what each signal advises
    /// from the rows it read (<see cref="Signal.CheckAdvice"/>) to <paramref name="advice"/>.
    /// </summary>
    public static async Task PollsAsync(SqlServerDataSource source, SqlServerSourceOptions fleet, SqlConnection connection,
        bool filesExpected, List<string> problems, List<string> warnings, List<string> advice, CancellationToken ct)
    {
        var sink = new KeepingSink();
        var poller = new InstancePoller(source, fleet, sink, new SourceHealth(), NullLogger.Instance, TimeProvider.System);
        await using (poller.ConfigureAwait(false))
        {
            var server = ServerProfile.Of(source.Options.Azure, connection.ServerVersion);
            foreach (var (signal, failure) in await poller.ProbeAsync(connection, ct).ConfigureAwait(false))
            {
                if (failure is null)
                {
                    advice.AddRange(signal.CheckAdvice(sink.Of(signal)));
                    continue;
                }

                var line = Failed(signal.Describe(server), failure, connection);
                // Log file latency and the log's room are the parts the monitor does without (the permission check warned already).
                ((signal == SignalRegistry.FileStats || signal == SignalRegistry.LogFiles) && !filesExpected ? warnings : problems).Add(line);
            }
        }
    }

    /// <summary>Keeps each signal's batches of the one poll check runs (the numbers are run's business; the advice reads the rows).</summary>
    private sealed class KeepingSink : Core.Samples.IPollSink
    {
        private readonly Dictionary<Signal, List<SignalBatch>> _batches = [];

        public List<SignalBatch> Of(Signal signal) => _batches.GetValueOrDefault(signal) ?? [];

        public void OnBatch(SignalBatch batch)
        {
            if (!_batches.TryGetValue(batch.Signal, out var list))
            {
                _batches[batch.Signal] = list = [];
            }

            list.Add(batch);
        }

        public void OnSourceLoss(string instance, Core.Samples.LossKind kind, long count)
        {
        }
    }

    /// <summary>
    /// Creates a temporary event session (the instance's session name plus <c>_check</c>) with a histogram target,
    /// starts it, reads the target's data, opens the live stream for <see cref="StreamProbe"/> (unless the instance
    /// is in histogram mode), and drops the session again.
    /// </summary>
    public static async Task EventsAsync(SqlServerDataSource source, SqlConnection connection,
        int timeout, List<string> problems, List<string> warnings, List<string> collect, CancellationToken ct)
    {
        var instance = source.Options;
        var (name, sessions) = TemporarySession(instance, timeout);
        var step = $"creating and starting the temporary event session {XeSessionName.Quote(name)} (histogram target)";
        var created = false;
        try
        {
            var databases = await sessions.ResolveDatabasesAsync(connection, ct).ConfigureAwait(false);
            created = true;
            await sessions.EnsureAsync(connection, name, () => sessions.BuildHistogramSessionDdl(name, null, databases, 256), ct).ConfigureAwait(false);
            step = "the histogram target's data (sys.dm_xe_session_targets)";
            _ = instance.Azure
                ? await connection.QueryFirstOrDefaultAsync<string?>(XeSql.DatabaseHistogramData, new { name, ct }, commandTimeout: timeout).ConfigureAwait(false)
                : await connection.QueryFirstOrDefaultAsync<string?>(XeSql.ServerHistogramData, new { name, ct }, commandTimeout: timeout).ConfigureAwait(false);
            collect.Add("histogram target: created, started and read on a temporary session");
            if (instance.Mode != CollectionMode.Histogram)
            {
                step = $"the live stream (sys.fn_MSxe_read_event_stream), held open {StreamProbe.TotalSeconds:0} s";
                var rows = await ReadStreamAsync(source, name, ct).ConfigureAwait(false);
                collect.Add($"live stream: held open {StreamProbe.TotalSeconds:0} s on a temporary session, {rows.Total:N0} row(s) received by type ({rows.Describe()})");
                if (rows.Rows(LiveStreamRowTally.Other) > 0)
                {
                    warnings.Add($"the live stream sent {rows.Rows(LiveStreamRowTally.Other):N0} row(s) of a type no public source describes: they are counted and skipped (sqlserver.monitor.events.lost{{loss.kind=\"malformed\"}}); a capture (check --capture) keeps their bytes for the project to read");
                }
            }

            // What the temporary session cost the server while it ran, as the server measured it.
            step = "what the temporary session cost (sys.dm_xe_sessions, sys.dm_xe_session_events)";
            var server = ServerProfile.Of(instance.Azure, connection.ServerVersion);
            var context = new PollContext(instance.Name, DiscardingSink.Instance, TimeProvider.System, timeout, NullLogger.Instance, SignalSettings.Default);
            var cost = await XeSessionCostSignal.ReadAsync(connection, context, server, name, ct).ConfigureAwait(false);
            collect.Add("event session cost (the temporary session, as the server measured it): " + XeSessionCostSignal.Describe(cost, server));
        }
        catch (Exception e) when (e is SqlException or InvalidOperationException or IOException or StatementAnswerException && !ct.IsCancellationRequested)
        {
            // The session's cost is information: a server that will not say it is no problem of the monitor's.
            (step.StartsWith("what the temporary session cost", StringComparison.Ordinal) ? warnings : problems).Add(Failed(step, e, connection));
        }
        finally
        {
            if (created && connection.State == ConnectionState.Open)
            {
                try
                {
                    await sessions.StopAsync(connection, name, CancellationToken.None).ConfigureAwait(false);
                }
                catch (SqlException e)
                {
                    warnings.Add($"could not drop the temporary event session {XeSessionName.Quote(name)}: {SqlServerLog.Safe(e)}; drop it by hand.");
                }
            }
        }
    }

    /// <summary>Opens the stream of <paramref name="session"/> on a connection of its own and reads until the probe time ends.</summary>
    private static async Task<LiveStreamRowTally> ReadStreamAsync(SqlServerDataSource source, string session, CancellationToken ct)
    {
        var instance = source.Name;
        var connection = await source.OpenAsync(ct).ConfigureAwait(false);
        await using (connection.ConfigureAwait(false))
        {
            using var reader = new EventStreamReader(instance, DiscardingSink.Instance, initialBufferBytes: 64 * 1024);
            using var probe = CancellationTokenSource.CreateLinkedTokenSource(ct);
            probe.CancelAfter(StreamProbe);
            var end = await Task.Factory.StartNew(() => reader.Read(connection, session, probe.Token), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)
                .ConfigureAwait(false);
            return end == StreamEnd.Ended && reader.BuffersRead == 0
                ? throw new InvalidOperationException("The server ended the live stream at once (the session stopped?).")
                : reader.Rows;
        }
    }

    private static string Failed(string statement, Exception e, SqlConnection connection)
    {
        var failure = FailureClassifier.Classify(e, connection.State != ConnectionState.Open);
        return $"{statement} failed ({failure.Kind}): {SqlServerLog.Safe(e)}";
    }
}

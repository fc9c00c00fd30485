using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Fleet;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Streaming;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Sources;

/// <summary>
/// Runs every configured instance of this replica's shard (Sources:SqlServer) into the pipeline: its DMV pollers
/// (polled rows go straight to the aggregation) and its events (live stream, or the server-side histogram).
/// Off when no instance is configured.
/// </summary>
internal sealed class SqlServerSourceService : SourceService
{
    private readonly SqlServerSourceOptions _options;
    private readonly SamplePipeline _pipeline;
    private readonly SourceHealth _health;
    private readonly TimeProvider _time;
    private readonly Readiness _readiness;
    private readonly ILogger<SqlServerSourceService> _logger;

    public SqlServerSourceService(IOptions<SqlServerSourceOptions> options, SamplePipeline pipeline, SourceHealth health, TimeProvider time, Readiness readiness, SourceShutdown shutdown, ILogger<SqlServerSourceService> logger)
        : base(ReadinessComponents.SqlServerSource, shutdown)
    {
        _options = options.Value;
        _pipeline = pipeline;
        _health = health;
        _time = time;
        _readiness = readiness;
        _logger = logger;
        if (IsConfigured)
        {
            readiness.NotReady(ReadinessComponents.SqlServerSource, "starting");
        }
    }

    private bool IsConfigured => _options.Instances.Count > 0;

    protected override async Task RunSourceAsync(CancellationToken stoppingToken)
    {
        if (!IsConfigured)
        {
            return;
        }

        var fleet = new SqlServerFleet(_options, _pipeline.Polls, _health, _logger, _time);
        // Ready once every instance delivered, and while none is down past the grace period (read from SourceHealth).
        _readiness.ExpectInstances(ReadinessComponents.SqlServerSource, fleet.Selected.Select(i => i.Name));

        // Beside each instance's pollers, its events: the live stream (or the server-side histogram), each in its
        // own task so one instance never stalls another. The stream writes through the pipeline's dropping writer (it
        // must never wait: drops are counted); histogram buckets are polled rows and go straight to the aggregation.
        var events = fleet.Selected.Select(instance => Task.Run(() => RunEventsAsync(instance, EventSourceSettings.For(_options, instance), stoppingToken), CancellationToken.None));
        await Task.WhenAll(events.Append(fleet.RunAsync(stoppingToken))).ConfigureAwait(false);
    }

    private async Task RunEventsAsync(SqlServerInstanceOptions instance, EventSourceSettings settings, CancellationToken stoppingToken)
    {
        string connectionString;
        try
        {
            connectionString = SqlConnections.WithConnectTimeout(ConnectionStrings.Resolve(instance), settings.ConnectTimeout);
        }
        catch (InvalidOperationException)
        {
            return; // the fleet's poller reports the configuration problem for this instance
        }

        // The event source retries what it expects through its own pipeline; anything that still escapes it is a bug,
        // reported (once, with its stack) and counted like any other failure, and the source restarted after the backoff.
        var backoff = new ReconnectBackoff(settings.ReconnectDelay, settings.MaxReconnectDelay);
        var reporter = new SourceFailureReporter(instance.Name, _health, _logger);
        for (var attempt = 0; !stoppingToken.IsCancellationRequested; attempt++)
        {
            try
            {
                var source = new InstanceEventSource(instance, connectionString, _pipeline.DroppingWriter, _pipeline.Polls, _health, settings, _time, _logger);
                await source.RunAsync(stoppingToken).ConfigureAwait(false);
                return;
            }
            catch (Exception) when (stoppingToken.IsCancellationRequested)
            {
                return; // stopping: SqlClient reports a cancelled command as a SqlException
            }
            catch (Exception e)
            {
                var failure = FailureClassifier.Classify(e);
                var delay = backoff.Delay(attempt, failure.Class);
                reporter.Failed(SourceComponents.Stream, e, failure, attempt + 1, delay);
                try
                {
                    await Task.Delay(delay, _time, stoppingToken).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return;
                }
            }
        }
    }
}

using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Fleet;
using LogFlushMonitor.SqlServer.Streaming;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Sources;

/// <summary>
/// Runs every configured instance of this replica's shard (Sources:SqlServer) into the pipeline: its DMV pollers
/// (polled rows go straight to the aggregation) and its events (live stream, or the server-side histogram).
/// Off when no instance is configured.
/// </summary>
internal sealed partial class SqlServerSourceService : BackgroundService
{
    private readonly SqlServerSourceOptions _options;
    private readonly SamplePipeline _pipeline;
    private readonly SourceHealth _health;
    private readonly TimeProvider _time;
    private readonly Readiness _readiness;
    private readonly ILogger<SqlServerSourceService> _logger;

    public SqlServerSourceService(IOptions<SqlServerSourceOptions> options, SamplePipeline pipeline, SourceHealth health, TimeProvider time, Readiness readiness, ILogger<SqlServerSourceService> logger)
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

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
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
        var settings = new EventSourceSettings { MaxReconnectDelay = _options.MaxReconnectDelay, CommandTimeoutSeconds = (int)_options.CommandTimeout.TotalSeconds };
        var events = fleet.Selected.Select(instance => Task.Run(() => RunEventsAsync(instance, settings, stoppingToken), CancellationToken.None));
        await Task.WhenAll(events.Append(fleet.RunAsync(stoppingToken))).ConfigureAwait(false);
    }

    private async Task RunEventsAsync(SqlServerInstanceOptions instance, EventSourceSettings settings, CancellationToken stoppingToken)
    {
        string connectionString;
        try
        {
            connectionString = ConnectionStrings.Resolve(instance);
        }
        catch (InvalidOperationException)
        {
            return; // the fleet's poller reports the configuration problem for this instance
        }

        // The event source retries what it expects; anything else it throws is logged and the source restarted,
        // so one instance's failure never stops the host or the other instances.
        while (!stoppingToken.IsCancellationRequested)
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
                _health.Failed(instance.Name, SourceComponents.Stream, SqlErrorKinds.Classify(e));
                LogEventSourceFailed(_logger, instance.Name, e.GetType().Name, _options.MaxReconnectDelay);
                try
                {
                    await Task.Delay(_options.MaxReconnectDelay, _time, stoppingToken).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return;
                }
            }
        }
    }

    [LoggerMessage(EventId = 520, Level = LogLevel.Error, Message = "Instance {Instance}: the event source failed unexpectedly ({ExceptionType}); restarting it in {Delay}")]
    private static partial void LogEventSourceFailed(ILogger logger, string instance, string exceptionType, TimeSpan delay);
}

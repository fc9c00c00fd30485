using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer.Fleet;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.SqlServer;

/// <summary>
/// Runs the DMV pollers of every configured instance (Sources:SqlServer, this replica's shard) into the pipeline:
/// polled rows go straight to the aggregation. Off when no instance is configured.
/// </summary>
internal sealed class SqlServerSourceService : BackgroundService
{
    private const string Component = "source:sqlserver";
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
            readiness.NotReady(Component, "starting");
        }
    }

    private bool IsConfigured => _options.Instances.Count > 0;

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (!IsConfigured)
        {
            return;
        }

        var fleet = new SqlServerFleet(_options, _pipeline, _health, _logger, _time);
        // Ready once the loops run: an unreachable instance is a health metric, not a reason to stay unready.
        _readiness.Ready(Component);
        await fleet.RunAsync(stoppingToken).ConfigureAwait(false);
    }
}

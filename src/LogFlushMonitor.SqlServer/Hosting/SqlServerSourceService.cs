using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.SqlServer.Fleet;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.SqlServer.Hosting;

/// <summary>
/// Runs the instances of this replica's shard (Sources:SqlServer) into the pipeline: each a
/// <see cref="SqlServerInstance"/>, its events through the pipeline's dropping writer (a live stream must never wait:
/// drops are counted), its polled rows straight to the aggregation. Off when no instance is configured. Cancelled when
/// the host's shutdown begins (<see cref="ISourceShutdown"/>, with every other source) and abandoned, naming each
/// instance still running, once the sources' shutdown timeout has passed.
/// </summary>
internal sealed class SqlServerSourceService : BackgroundService
{
    private const string Component = SqlServerFleet.ReadinessComponent;

    private readonly SqlServerSourceOptions _options;
    private readonly SamplePipeline _pipeline;
    private readonly SourceHealth _health;
    private readonly TimeProvider _time;
    private readonly ISourceReadiness? _readiness;
    private readonly ISourceShutdown? _shutdown;
    private readonly ILogger<SqlServerSourceService> _logger;
    private SqlServerFleet? _fleet;
    private Task? _running;

    public SqlServerSourceService(IOptions<SqlServerSourceOptions> options, SamplePipeline pipeline, SourceHealth health, TimeProvider time,
        ILogger<SqlServerSourceService> logger, ISourceReadiness? readiness = null, ISourceShutdown? shutdown = null)
    {
        _options = options.Value;
        _pipeline = pipeline;
        _health = health;
        _time = time;
        _readiness = readiness;
        _shutdown = shutdown;
        _logger = logger;
        if (_options.Instances.Count > 0)
        {
            readiness?.NotReady(Component, "starting");
        }
    }

    /// <summary>The fleet, once running (tests read its instances).</summary>
    public SqlServerFleet? Fleet => _fleet;

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (_options.Instances.Count == 0)
        {
            return;
        }

        using var stopping = CancellationTokenSource.CreateLinkedTokenSource(stoppingToken, _shutdown?.Stopping ?? CancellationToken.None);
        var fleet = new SqlServerFleet(_options, _pipeline.DroppingWriter, _pipeline.Polls, _health, _logger, _time);
        _fleet = fleet;
        // Ready once every instance delivered, and while none is down past the grace period (read from SourceHealth).
        _readiness?.ExpectInstances(Component, fleet.Selected.Select(i => i.Name));
        _running = fleet.RunAsync(stopping.Token);
        await _running.ConfigureAwait(false);
    }

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        using var bounded = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bounded.CancelAfter(_shutdown?.Remaining ?? _options.ShutdownTimeout);
        try
        {
            await base.StopAsync(bounded.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (bounded.IsCancellationRequested)
        {
            // The wait ended, not the source: named below.
        }

        if (Volatile.Read(ref _running) is { IsCompleted: false } && _fleet is { } fleet)
        {
            foreach (var name in fleet.Running)
            {
                _shutdown?.DidNotStop($"{Component} {name}");
            }
        }
    }
}

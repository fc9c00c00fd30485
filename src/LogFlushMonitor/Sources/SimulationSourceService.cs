using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Simulation;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Sources;

/// <summary>Runs the simulated workload (Sources:Simulate) into the pipeline, paced in real time.</summary>
internal sealed partial class SimulationSourceService(IOptions<MonitorOptions> options, SamplePipeline pipeline, SourceHealth health, TimeProvider time, Readiness readiness, SourceShutdown shutdown, ILogger<SimulationSourceService> logger)
    : OptionalSourceService(ReadinessComponents.SimulateSource, !string.IsNullOrWhiteSpace(options.Value.Sources.Simulate.Scenario), pipeline, health, readiness, time, shutdown)
{
    private readonly SimulateSourceOptions _options = options.Value.Sources.Simulate;
    private readonly bool _statementText = options.Value.Sources.SqlServer.StatementText;

    protected override async Task RunAsync(CancellationToken stoppingToken)
    {
        var simulation = SimulationScenarios.Create(_options.Scenario!, new SimulationOptions { Seed = _options.Seed, StatementText = _statementText });
        LogStarted(logger, _options.Scenario!, string.Join(", ", simulation.Instances), _options.Speed);
        await SimulationRunner.RunAsync(simulation, Sink, Time, _options.Speed, _options.Duration, stoppingToken).ConfigureAwait(false);
        if (!stoppingToken.IsCancellationRequested)
        {
            LogFinished(logger, _options.Scenario!);
        }
    }

    [LoggerMessage(EventId = 300, Level = LogLevel.Information, Message = "Simulating scenario {Scenario} on instances {Instances} at speed {Speed}")]
    private static partial void LogStarted(ILogger logger, string scenario, string instances, double speed);

    [LoggerMessage(EventId = 301, Level = LogLevel.Information, Message = "Simulation {Scenario} finished; metrics stay available until the service stops")]
    private static partial void LogFinished(ILogger logger, string scenario);
}

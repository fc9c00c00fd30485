using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Simulation.Ndjson;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// A source that runs only when configured: it holds readiness back from construction until it runs, and
/// delivers through a waiting writer of the pipeline (a paced source may wait for room; it never loses samples).
/// </summary>
internal abstract class OptionalSourceService : BackgroundService
{
    private readonly Readiness _readiness;
    private readonly string _component;

    protected OptionalSourceService(string component, bool configured, SamplePipeline pipeline, Readiness readiness)
    {
        _component = component;
        _readiness = readiness;
        IsConfigured = configured;
        Sink = pipeline.CreateWaitingWriter();
        if (configured)
        {
            readiness.NotReady(component, "starting");
        }
    }

    protected bool IsConfigured { get; }

    protected Core.Samples.IPacedSampleSink Sink { get; }

    protected sealed override Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (!IsConfigured)
        {
            return Task.CompletedTask;
        }

        _readiness.Ready(_component);
        return RunAsync(stoppingToken);
    }

    protected abstract Task RunAsync(CancellationToken stoppingToken);
}

/// <summary>Runs the simulated workload (Sources:Simulate) into the pipeline, paced in real time.</summary>
internal sealed partial class SimulationSourceService(IOptions<MonitorOptions> options, SamplePipeline pipeline, TimeProvider time, Readiness readiness, ILogger<SimulationSourceService> logger)
    : OptionalSourceService("source:simulate", !string.IsNullOrWhiteSpace(options.Value.Sources.Simulate.Scenario), pipeline, readiness)
{
    private readonly SimulateSourceOptions _options = options.Value.Sources.Simulate;

    protected override async Task RunAsync(CancellationToken stoppingToken)
    {
        var simulation = SimulationScenarios.Create(_options.Scenario!, new SimulationOptions { Seed = _options.Seed });
        LogStarted(logger, _options.Scenario!, string.Join(", ", simulation.Instances), _options.Speed);
        await SimulationRunner.RunAsync(simulation, Sink, time, _options.Speed, _options.Duration, stoppingToken).ConfigureAwait(false);
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

/// <summary>Replays an NDJSON recording (Sources:Replay) into the pipeline.</summary>
internal sealed partial class ReplaySourceService(IOptions<MonitorOptions> options, SamplePipeline pipeline, TimeProvider time, Readiness readiness, ILogger<ReplaySourceService> logger)
    : OptionalSourceService("source:replay", !string.IsNullOrWhiteSpace(options.Value.Sources.Replay.Path), pipeline, readiness)
{
    private readonly ReplaySourceOptions _options = options.Value.Sources.Replay;

    protected override async Task RunAsync(CancellationToken stoppingToken)
    {
        var path = _options.Path!;
        LogStarted(logger, path, _options.Speed);
        var summary = await NdjsonReplay.ReplayFileAsync(
            path,
            Sink,
            new NdjsonReplayOptions
            {
                Speed = _options.Speed == 0 ? double.PositiveInfinity : _options.Speed,
                RebaseToNow = _options.RebaseToNow,
                Time = time,
                OnError = e => LogMalformed(logger, e.Source, e.Line, e.Message),
            },
            stoppingToken).ConfigureAwait(false);
        LogFinished(logger, path, summary.Lines, summary.Samples, summary.Errors);
    }

    [LoggerMessage(EventId = 310, Level = LogLevel.Information, Message = "Replaying {Path} at speed {Speed}")]
    private static partial void LogStarted(ILogger logger, string path, double speed);

    [LoggerMessage(EventId = 311, Level = LogLevel.Warning, Message = "{Path}:{Line}: {Problem}; the line was skipped")]
    private static partial void LogMalformed(ILogger logger, string path, long line, string problem);

    [LoggerMessage(EventId = 312, Level = LogLevel.Information, Message = "Replay of {Path} finished: {Lines} lines, {Samples} samples, {Errors} malformed lines; metrics stay available until the service stops")]
    private static partial void LogFinished(ILogger logger, string path, long lines, long samples, long errors);
}

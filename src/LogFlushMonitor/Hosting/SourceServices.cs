using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.Simulation;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Hosting;

/// <summary>Runs the simulated workload (Sources:Simulate) into the pipeline, paced in real time.</summary>
internal sealed partial class SimulationSourceService : BackgroundService
{
    private const string Component = "source:simulate";
    private readonly SimulateSourceOptions _options;
    private readonly SamplePipeline _pipeline;
    private readonly TimeProvider _time;
    private readonly Readiness _readiness;
    private readonly ILogger<SimulationSourceService> _logger;

    public SimulationSourceService(IOptions<MonitorOptions> options, SamplePipeline pipeline, TimeProvider time, Readiness readiness, ILogger<SimulationSourceService> logger)
    {
        _options = options.Value.Sources.Simulate;
        _pipeline = pipeline;
        _time = time;
        _readiness = readiness;
        _logger = logger;
        if (IsConfigured)
        {
            readiness.NotReady(Component, "starting");
        }
    }

    private bool IsConfigured => !string.IsNullOrWhiteSpace(_options.Scenario);

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (!IsConfigured)
        {
            return;
        }

        var simulation = SimulationScenarios.Create(_options.Scenario!, new SimulationOptions { Seed = _options.Seed });
        LogStarted(_logger, _options.Scenario!, string.Join(", ", simulation.Instances), _options.Speed);
        _readiness.Ready(Component);
        await SimulationRunner.RunAsync(simulation, _pipeline.Waiting, _time, _options.Speed, _options.Duration, stoppingToken).ConfigureAwait(false);
        if (!stoppingToken.IsCancellationRequested)
        {
            LogFinished(_logger, _options.Scenario!);
        }
    }

    [LoggerMessage(EventId = 300, Level = LogLevel.Information, Message = "Simulating scenario {Scenario} on instances {Instances} at speed {Speed}")]
    private static partial void LogStarted(ILogger logger, string scenario, string instances, double speed);

    [LoggerMessage(EventId = 301, Level = LogLevel.Information, Message = "Simulation {Scenario} finished; metrics stay available until the service stops")]
    private static partial void LogFinished(ILogger logger, string scenario);
}

/// <summary>Replays an NDJSON recording (Sources:Replay) into the pipeline.</summary>
internal sealed partial class ReplaySourceService : BackgroundService
{
    private const string Component = "source:replay";
    private readonly ReplaySourceOptions _options;
    private readonly SamplePipeline _pipeline;
    private readonly TimeProvider _time;
    private readonly Readiness _readiness;
    private readonly ILogger<ReplaySourceService> _logger;

    public ReplaySourceService(IOptions<MonitorOptions> options, SamplePipeline pipeline, TimeProvider time, Readiness readiness, ILogger<ReplaySourceService> logger)
    {
        _options = options.Value.Sources.Replay;
        _pipeline = pipeline;
        _time = time;
        _readiness = readiness;
        _logger = logger;
        if (IsConfigured)
        {
            readiness.NotReady(Component, "starting");
        }
    }

    private bool IsConfigured => !string.IsNullOrWhiteSpace(_options.Path);

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (!IsConfigured)
        {
            return;
        }

        var path = _options.Path!;
        LogStarted(_logger, path, _options.Speed);
        _readiness.Ready(Component);
        var summary = await NdjsonReplay.ReplayFileAsync(
            path,
            _pipeline.Waiting,
            new NdjsonReplayOptions
            {
                Speed = _options.Speed == 0 ? double.PositiveInfinity : _options.Speed,
                RebaseToNow = _options.RebaseToNow,
                Time = _time,
                OnError = e => LogMalformed(_logger, e.Source, e.Line, e.Message),
            },
            stoppingToken).ConfigureAwait(false);
        LogFinished(_logger, path, summary.Lines, summary.Samples, summary.Errors);
    }

    [LoggerMessage(EventId = 310, Level = LogLevel.Information, Message = "Replaying {Path} at speed {Speed}")]
    private static partial void LogStarted(ILogger logger, string path, double speed);

    [LoggerMessage(EventId = 311, Level = LogLevel.Warning, Message = "{Path}:{Line}: {Problem}; the line was skipped")]
    private static partial void LogMalformed(ILogger logger, string path, long line, string problem);

    [LoggerMessage(EventId = 312, Level = LogLevel.Information, Message = "Replay of {Path} finished: {Lines} lines, {Samples} samples, {Errors} malformed lines; metrics stay available until the service stops")]
    private static partial void LogFinished(ILogger logger, string path, long lines, long samples, long errors);
}

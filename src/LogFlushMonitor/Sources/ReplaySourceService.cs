using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Simulation.Ndjson;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Sources;

/// <summary>Replays an NDJSON recording (Sources:Replay) into the pipeline.</summary>
internal sealed partial class ReplaySourceService(IOptions<MonitorOptions> options, SamplePipeline pipeline, TimeProvider time, Readiness readiness, ILogger<ReplaySourceService> logger)
    : OptionalSourceService(ReadinessComponents.ReplaySource, !string.IsNullOrWhiteSpace(options.Value.Sources.Replay.Path), pipeline, readiness)
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

using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Recording;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Sources;

/// <summary>
/// Replays an NDJSON recording (Sources:Replay) into the pipeline. A malformed line is logged (at most
/// <see cref="MaxLoggedErrors"/> of them, then a count) and skipped; a file that cannot be read stops the service
/// with exit code 1.
/// </summary>
internal sealed partial class ReplaySourceService(
    IOptions<MonitorOptions> options,
    SamplePipeline pipeline,
    SourceHealth health,
    TimeProvider time,
    Readiness readiness,
    HostFailures failures,
    IHostApplicationLifetime lifetime,
    SourceShutdown shutdown,
    ILogger<ReplaySourceService> logger)
    : OptionalSourceService(ReadinessComponents.ReplaySource, !string.IsNullOrWhiteSpace(options.Value.Sources.Replay.Path), pipeline, health, readiness, time, shutdown)
{
    /// <summary>Malformed lines logged one by one; the rest are counted (sqlserver.monitor.events.lost, malformed) and summed up at the end.</summary>
    internal const int MaxLoggedErrors = 100;

    private readonly ReplaySourceOptions _options = options.Value.Sources.Replay;
    private long _errors;

    protected override async Task RunAsync(CancellationToken stoppingToken)
    {
        var path = _options.Path!;
        LogStarted(logger, path, _options.Speed);
        NdjsonReplaySummary summary;
        try
        {
            // Opened on a pool thread and read through AbandonableReadStream: a FIFO blocks in open() until a writer
            // comes, and in read() while the writer is silent, and neither notices cancellation.
            var file = await Task.Run(() => new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 0, FileOptions.SequentialScan), CancellationToken.None)
                .WaitAsync(stoppingToken).ConfigureAwait(false);
            await using var stream = new AbandonableReadStream(file);
            summary = await NdjsonReplay.ReplayAsync(
                stream,
                path,
                Sink,
                new NdjsonReplayOptions
                {
                    Speed = _options.Speed == 0 ? double.PositiveInfinity : _options.Speed,
                    RebaseToNow = _options.RebaseToNow,
                    Time = Time,
                    OnError = OnMalformed,
                    OnBehind = lag => LogBehind(logger, path, lag.Behind.TotalSeconds, _options.Speed, lag.ActualSpeed),
                },
                stoppingToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException && !stoppingToken.IsCancellationRequested)
        {
            Readiness.NotReady(ReadinessComponents.ReplaySource, "failed");
            failures.Record(ReadinessComponents.ReplaySource);
            LogReadFailed(logger, path, e.Message);
            lifetime.StopApplication();
            return;
        }

        LogFinished(logger, path, summary.Lines, summary.Samples, summary.Errors);
    }

    private void OnMalformed(NdjsonReplayError e)
    {
        // Rate-limited by count: a damaged file of a million lines must not become a million log lines.
        if (++_errors <= MaxLoggedErrors)
        {
            LogMalformed(logger, e.Source, e.Line, e.Message);
        }

        if (_errors == MaxLoggedErrors)
        {
            LogMalformedSuppressed(logger, e.Source, MaxLoggedErrors);
        }
    }

    [LoggerMessage(EventId = 310, Level = LogLevel.Information, Message = "Replaying {Path} at speed {Speed}")]
    private static partial void LogStarted(ILogger logger, string path, double speed);

    [LoggerMessage(EventId = 311, Level = LogLevel.Warning, Message = "{Path}:{Line}: {Problem}; the line was skipped")]
    private static partial void LogMalformed(ILogger logger, string path, long line, string problem);

    [LoggerMessage(EventId = 315, Level = LogLevel.Warning, Message = "Replay of {Path} is {Behind:0.0} s behind speed {Speed}: it runs at about {ActualSpeed:0.#}x, as fast as the reader and the pipeline go. Lower --speed (Sources:Replay:Speed), or use 0 for as fast as possible")]
    private static partial void LogBehind(ILogger logger, string path, double behind, double speed, double actualSpeed);

    [LoggerMessage(EventId = 312, Level = LogLevel.Information, Message = "Replay of {Path} finished: {Lines} lines, {Samples} samples, {Errors} malformed lines; metrics stay available until the service stops")]
    private static partial void LogFinished(ILogger logger, string path, long lines, long samples, long errors);

    [LoggerMessage(EventId = 313, Level = LogLevel.Warning, Message = "{Path}: {Count} malformed lines logged; further ones are only counted (sqlserver.monitor.events.lost, loss.kind=malformed) and totalled when the replay ends")]
    private static partial void LogMalformedSuppressed(ILogger logger, string path, int count);

    [LoggerMessage(EventId = 314, Level = LogLevel.Critical, Message = "Replay of {Path} failed: {Problem}; the service stops (exit code 1)")]
    private static partial void LogReadFailed(ILogger logger, string path, string problem);
}

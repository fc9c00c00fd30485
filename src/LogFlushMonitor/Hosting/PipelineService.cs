using LogFlushMonitor.Core.Pipeline;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Runs the pipeline's consumer; on stop, after the sources have stopped, drains what is left. A consumer that faults
/// stops the host (exit 1): without it every later event would only be counted as channel_full.
/// </summary>
internal sealed partial class PipelineService(
    SamplePipeline pipeline,
    Readiness readiness,
    HostFailures failures,
    IHostApplicationLifetime lifetime,
    ILogger<PipelineService> logger) : IHostedService
{
    private Task? _consumer;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _consumer = Task.Run(() => pipeline.RunAsync(CancellationToken.None), CancellationToken.None);
        _ = _consumer.ContinueWith(OnFaulted, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted, TaskScheduler.Default);
        readiness.Ready(ReadinessComponents.Pipeline);
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        readiness.NotReady(ReadinessComponents.Pipeline, "stopping");
        pipeline.Complete();
        if (_consumer is { IsFaulted: false })
        {
            await _consumer.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    private void OnFaulted(Task consumer)
    {
        readiness.NotReady(ReadinessComponents.Pipeline, "failed");
        failures.Record(ReadinessComponents.Pipeline);
        LogConsumerFailed(logger, consumer.Exception!.GetBaseException());
        lifetime.StopApplication();
    }

    [LoggerMessage(EventId = 110, Level = LogLevel.Critical, Message = "The pipeline's consumer failed; no event reaches the aggregation any more, so the service stops (exit code 1)")]
    private static partial void LogConsumerFailed(ILogger logger, Exception exception);
}

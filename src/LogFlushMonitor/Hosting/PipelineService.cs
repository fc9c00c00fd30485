using LogFlushMonitor.Core.Pipeline;

namespace LogFlushMonitor.Hosting;

/// <summary>Runs the pipeline's consumer; on stop, after the sources have stopped, drains what is left.</summary>
internal sealed class PipelineService(SamplePipeline pipeline, Readiness readiness) : IHostedService
{
    private Task? _consumer;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _consumer = Task.Run(() => pipeline.RunAsync(CancellationToken.None), CancellationToken.None);
        readiness.Ready(ReadinessComponents.Pipeline);
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        readiness.NotReady(ReadinessComponents.Pipeline, "stopping");
        pipeline.Complete();
        if (_consumer is not null)
        {
            await _consumer.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }
}

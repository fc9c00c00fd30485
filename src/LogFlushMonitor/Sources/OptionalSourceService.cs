using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Sources;

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

    protected IPacedSampleSink Sink { get; }

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

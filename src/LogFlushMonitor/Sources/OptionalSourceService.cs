using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Sources;

/// <summary>
/// A source that runs only when configured: it holds readiness back from construction until it delivers its first
/// sample, reports its instances' health (<see cref="DeliveryTrackingSink"/>), and delivers through a waiting writer of
/// the pipeline (a paced source may wait for room; it never loses samples).
/// </summary>
internal abstract class OptionalSourceService : SourceService
{
    protected OptionalSourceService(string component, bool configured, SamplePipeline pipeline, SourceHealth health, Readiness readiness, TimeProvider time, SourceShutdown shutdown)
        : base(component, shutdown)
    {
        IsConfigured = configured;
        Readiness = readiness;
        Time = time;
        Sink = new DeliveryTrackingSink(pipeline.CreateWaitingWriter(), health, readiness, component, time);
        if (configured)
        {
            readiness.Expect(component);
        }
    }

    protected bool IsConfigured { get; }

    protected Readiness Readiness { get; }

    protected TimeProvider Time { get; }

    protected IPacedSampleSink Sink { get; }

    protected sealed override Task RunSourceAsync(CancellationToken stoppingToken) =>
        IsConfigured ? RunAsync(stoppingToken) : Task.CompletedTask;

    protected abstract Task RunAsync(CancellationToken stoppingToken);
}

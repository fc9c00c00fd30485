using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Simulation;

/// <summary>Runs a <see cref="WorkloadSimulation"/> in step with a clock, so a host sees a live workload.</summary>
public static class SimulationRunner
{
    /// <summary>Wall time between advances at speed 1 (shorter at higher speeds, never under 10 ms).</summary>
    public static readonly TimeSpan TickAtSpeedOne = TimeSpan.FromMilliseconds(100);

    private static readonly TimeSpan MinTick = TimeSpan.FromMilliseconds(10);

    // Virtual time generated between two waits for room: bounds what a waiting writer holds when the pipeline is behind.
    private static readonly TimeSpan MaxSlice = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Advances <paramref name="simulation"/> to "now" every tick: its virtual time runs <paramref name="speed"/>
    /// times as fast as <paramref name="time"/>, from where it stands (an unstarted simulation starts at the
    /// clock's now). After each step it waits for room in <paramref name="sink"/>, so a pipeline that is behind
    /// slows the simulation down instead of losing its events. Stops after <paramref name="duration"/> of virtual time, or never when null; cancellation
    /// ends it cleanly (the task completes without throwing). <see cref="double.PositiveInfinity"/> runs as fast as
    /// possible and then needs a duration.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">Speed is not positive, or infinite without a duration.</exception>
    public static async Task RunAsync(WorkloadSimulation simulation, IPacedSampleSink sink, TimeProvider time, double speed = 1, TimeSpan? duration = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(simulation);
        ArgumentNullException.ThrowIfNull(sink);
        ArgumentNullException.ThrowIfNull(time);
        if (!(speed > 0) || (double.IsPositiveInfinity(speed) && duration is null))
        {
            throw new ArgumentOutOfRangeException(nameof(speed), speed, "Speed must be positive; infinity (as fast as possible) needs a duration.");
        }

        if (!simulation.IsStarted)
        {
            simulation.Start(time.GetUtcNow().UtcDateTime);
        }

        // Flushes that start and do not complete are paired here, before the pipeline, as a live stream pairs them.
        sink = new OutstandingFlushTracker(sink);

        var origin = simulation.NowUtc;
        var end = duration is { } d ? origin + d : DateTime.MaxValue;
        try
        {
            if (double.IsPositiveInfinity(speed))
            {
                await RunFlatOutAsync(simulation, sink, end, cancellationToken).ConfigureAwait(false);
                return;
            }

            var tick = TimeSpan.FromTicks(Math.Max(MinTick.Ticks, (long)(TickAtSpeedOne.Ticks / speed)));
            var wallStart = time.GetUtcNow();
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                // From the clock, not by adding ticks: a slow advance or a late timer does not make virtual time drift.
                var virtualElapsed = (time.GetUtcNow() - wallStart).Ticks * speed;
                var target = virtualElapsed >= (end - origin).Ticks ? end : origin.AddTicks((long)virtualElapsed);
                await AdvanceInSlicesAsync(simulation, target, sink, cancellationToken).ConfigureAwait(false);
                if (target >= end)
                {
                    return;
                }

                await Task.Delay(tick, time, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Cancellation is how a host stops it: not an error.
        }
    }

    private static async Task RunFlatOutAsync(WorkloadSimulation simulation, IPacedSampleSink sink, DateTime end, CancellationToken cancellationToken)
    {
        while (simulation.NowUtc < end)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var next = simulation.NowUtc.AddSeconds(1);
            await AdvanceInSlicesAsync(simulation, next < end ? next : end, sink, cancellationToken).ConfigureAwait(false);
            // Let the host's other work run between virtual seconds.
            await Task.Yield();
        }
    }

    /// <summary>
    /// Advances to <paramref name="target"/> in slices of at most <see cref="MaxSlice"/>, waiting for room after each:
    /// the samples are the same as one Advance, and a pipeline that is behind holds back the simulation (whose virtual
    /// time then lags) instead of a backlog growing with the catch-up.
    /// </summary>
    private static async Task AdvanceInSlicesAsync(WorkloadSimulation simulation, DateTime target, IPacedSampleSink sink, CancellationToken cancellationToken)
    {
        do
        {
            var next = simulation.NowUtc + MaxSlice;
            simulation.Advance(next < target ? next : target, sink);
            await sink.WaitForRoomAsync(cancellationToken).ConfigureAwait(false);
        }
        while (simulation.NowUtc < target);
    }
}

using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Pipeline;

namespace LogFlushMonitor.Simulation.Tests;

public class SimulationRunnerTests
{
    private static readonly DateTimeOffset Wall = new(2030, 1, 1, 0, 0, 0, TimeSpan.Zero);

    /// <summary>Moves the manual clock in small steps, letting the runner re-arm its timer after each.</summary>
    private static async Task Walk(ManualTimeProvider time, TimeSpan total, TimeSpan step, Task runner)
    {
        for (var walked = TimeSpan.Zero; walked < total; walked += step)
        {
            await Eventually.Until(() => time.PendingTimers == 1 || runner.IsCompleted);
            if (runner.IsCompleted)
            {
                return;
            }

            time.Advance(step);
        }

        await Eventually.Until(() => time.PendingTimers == 1 || runner.IsCompleted);
    }

    [Theory]
    [InlineData(1.0)]
    [InlineData(10.0)]
    public async Task Virtual_time_advances_at_the_speed_asked_and_stops_after_the_duration(double speed)
    {
        var time = new ManualTimeProvider(Wall);
        var sim = SimulationScenarios.Create("autocommit");
        var sink = new RecordingSink();
        var runner = SimulationRunner.RunAsync(sim, sink, time, speed, TimeSpan.FromSeconds(30));

        Assert.Equal(Wall.UtcDateTime, sim.StartUtc);
        await Walk(time, TimeSpan.FromSeconds(1), TimeSpan.FromMilliseconds(10), runner);
        Assert.Equal(Wall.UtcDateTime.AddSeconds(speed), sim.NowUtc);
        Assert.False(runner.IsCompleted);
        Assert.All(sink.FlushStarts, f => Assert.True(f.TimestampUtc < sim.NowUtc));
        var flushes = sink.FlushStarts.Count();
        Assert.InRange(flushes, 4500 * speed, 5500 * speed);

        await Walk(time, TimeSpan.FromSeconds(40 / speed), TimeSpan.FromMilliseconds(10), runner);
        await runner.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(Wall.UtcDateTime.AddSeconds(30), sim.NowUtc);
    }

    [Fact]
    public async Task Without_a_duration_it_runs_until_cancelled_and_then_stops_cleanly()
    {
        var time = new ManualTimeProvider(Wall);
        var sim = SimulationScenarios.Create("big-transaction");
        using var cts = new CancellationTokenSource();
        var runner = SimulationRunner.RunAsync(sim, new RecordingSink(), time, 100, null, cts.Token);
        await Walk(time, TimeSpan.FromSeconds(5), TimeSpan.FromMilliseconds(10), runner);
        Assert.Equal(Wall.UtcDateTime.AddSeconds(500), sim.NowUtc);

        await cts.CancelAsync();
        await runner.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(runner.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task Infinite_speed_runs_the_duration_flat_out_and_needs_one()
    {
        var sim = SimulationScenarios.Create("delayed-durability");
        var sink = new RecordingSink();
        await SimulationRunner.RunAsync(sim, sink, new ManualTimeProvider(Wall), double.PositiveInfinity, TimeSpan.FromSeconds(12));
        Assert.Equal(Wall.UtcDateTime.AddSeconds(12), sim.NowUtc);
        Assert.True(sink.FlushStarts.Count() > 1000);

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => SimulationRunner.RunAsync(SimulationScenarios.Create("mixed"), sink, TimeProvider.System, double.PositiveInfinity, null));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => SimulationRunner.RunAsync(SimulationScenarios.Create("mixed"), sink, TimeProvider.System, 0, null));
    }

    [Fact]
    public async Task A_simulation_faster_than_the_pipeline_is_held_back_and_loses_nothing()
    {
        // A channel of 256 events in front of a real aggregation: flat out, the simulation outruns the consumer at once.
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator, capacity: 256);
        var consumer = pipeline.RunAsync(CancellationToken.None);
        var counted = new RecordingSink { Keep = false };
        SimulationScenarios.Create("autocommit", LightWorkload.Options).Run(Wall.UtcDateTime, TimeSpan.FromSeconds(20), counted);

        await SimulationRunner.RunAsync(SimulationScenarios.Create("autocommit", LightWorkload.Options), pipeline.CreateWaitingWriter(),
            new ManualTimeProvider(Wall), double.PositiveInfinity, TimeSpan.FromSeconds(20));
        pipeline.Complete();
        await consumer.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal(0, pipeline.Dropped);
        Assert.Equal(counted.Events, pipeline.Applied); // every event the same simulation makes, in the aggregation
        Assert.Equal(counted.Flushes, aggregator.Snapshot().Single(d => d.Database == "shop").WriteSizes.Count);
    }

    [Fact]
    public async Task A_started_simulation_continues_from_where_it_stands()
    {
        var sim = SimulationScenarios.Create("autocommit");
        sim.Start(ScenarioShapeTests.T0);
        sim.Advance(ScenarioShapeTests.T0.AddSeconds(3), new RecordingSink());
        var time = new ManualTimeProvider(Wall);
        var runner = SimulationRunner.RunAsync(sim, new RecordingSink(), time, 2, TimeSpan.FromSeconds(4));
        await Walk(time, TimeSpan.FromSeconds(3), TimeSpan.FromMilliseconds(50), runner);
        await runner.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(ScenarioShapeTests.T0.AddSeconds(7), sim.NowUtc);
    }
}

using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Simulation.Tests;

/// <summary>
/// The advice the periodic summary gives (one aggregator since the start, its first item logged) on the simulated
/// workloads: a slow log is named before the batching advice, a fast one leaves the batching advice first.
/// </summary>
public class ScenarioAdviceTests
{
    private static readonly DateTime T0 = ScenarioShapeTests.T0;

    private static IReadOnlyList<AdviceItem> AdviceAfter(string scenario, string database, TimeSpan elapsed)
    {
        var aggregator = new LogFlushAggregator();
        var sim = SimulationScenarios.Create(scenario);
        sim.Start(T0);
        sim.Advance(T0 + elapsed, aggregator);
        return Advisor.Advise(Assert.Single(aggregator.Snapshot(), d => d.Database == database));
    }

    [Fact]
    public void The_writelog_spike_plateau_names_the_slow_log_device_before_batching()
    {
        // 45 s: inside the plateau (33-53 s); the last poll (40-45 s) saw ~30 ms writes.
        var advice = AdviceAfter("writelog-spike", "payments", TimeSpan.FromSeconds(45));
        var codes = advice.Select(a => a.Code).ToList();
        Assert.Equal(["slow-log-writes", "slow-writelog", "single-sector-flushes"], codes);
        Assert.Contains("the log device is slow", advice[0].Text, StringComparison.Ordinal);
    }

    [Fact]
    public void The_writelog_spike_between_spikes_gives_the_batching_advice_first()
    {
        var advice = AdviceAfter("writelog-spike", "payments", TimeSpan.FromSeconds(25));
        Assert.Equal("single-sector-flushes", advice[0].Code);
    }

    [Fact]
    public void Autocommit_on_a_fast_log_gives_the_batching_advice_first()
    {
        var advice = AdviceAfter("autocommit", "shop", TimeSpan.FromSeconds(45));
        Assert.Equal(["single-sector-flushes"], advice.Select(a => a.Code));
    }
}

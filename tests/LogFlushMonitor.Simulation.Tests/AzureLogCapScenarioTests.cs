using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Simulation.Tests;

/// <summary>
/// <c>azure-log-cap</c>'s documented shape (docs/simulate.md): four sessions want 43 % of the cap until 30 s after the start,
/// so nobody waits on the governor then, at any rate scale; from 30 s they want 171 % of it and wait. At a rate scale of
/// 0.02 (the goldens' and the fleet's) the scaled cap's 100 ms burst was smaller than one 60 KB block, and every block of
/// the quiet load waited: the mixed golden recorded 5.3 s of log-rate cap per commit of a database far under its cap.
/// </summary>
public class AzureLogCapScenarioTests
{
    private static double GovernorSeconds(LogFlushAggregator aggregator) =>
        Assert.Single(aggregator.Snapshot(), d => d.Database == "ingest").CommitBudget?.Parts
            .Where(p => p.Part == CommitPart.LogRateGovernor).Sum(p => p.Seconds) ?? 0;

    [Theory]
    [InlineData(1.0)]
    [InlineData(0.02)]
    public void Under_the_cap_nobody_waits_on_the_governor_at_any_rate_scale(double rateScale)
    {
        var aggregator = new LogFlushAggregator();
        SimulationScenarios.Create("azure-log-cap", new SimulationOptions { RateScale = rateScale }).Run(ScenarioShapeTests.T0, TimeSpan.FromSeconds(29), aggregator);

        Assert.Equal(0, GovernorSeconds(aggregator));
    }

    [Theory]
    [InlineData(1.0)]
    [InlineData(0.02)]
    public void Over_the_cap_the_sessions_wait_on_the_governor(double rateScale)
    {
        var aggregator = new LogFlushAggregator();
        SimulationScenarios.Create("azure-log-cap", new SimulationOptions { RateScale = rateScale }).Run(ScenarioShapeTests.T0, TimeSpan.FromSeconds(90), aggregator);

        // 60 s over the cap, four sessions each waiting ~41 % of the time (1 - 9,830,400 / 16,777,216): ~100 s in all.
        Assert.InRange(GovernorSeconds(aggregator), 60, 140);
    }
}

using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Simulation.Tests;

public class RealCounterSetTests
{
    [Fact]
    public void Every_poll_reports_all_47_counters_of_the_Databases_object_for_each_database_and_Total()
    {
        var sink = new RecordingSink();
        SimulationScenarios.Create("mixed", LightWorkload.Options).Run(ScenarioShapeTests.T0, TimeSpan.FromSeconds(20), sink);

        // sql-c/archive is in an availability group: its two Database Replica counters are another object's.
        var byInstance = sink.Counters.Where(c => c.Row.ObjectName == "Databases").GroupBy(c => (c.Instance, c.Row.CounterInstance, c.TimestampUtc)).ToList();
        Assert.NotEmpty(byInstance);
        Assert.All(byInstance, poll => Assert.Equal(47, poll.Select(c => c.Row.CounterName).Distinct().Count()));
        Assert.Contains(byInstance, poll => poll.Key.CounterInstance == "_Total");
        var ratio = sink.Counters.Select(c => c.Row).First(c => c.CounterName == "Log Cache Hit Ratio" && c.BaseValue > 0);
        Assert.Equal(PerfCounterType.LargeRawFraction, ratio.CounterType);
        Assert.InRange(ratio.Value, 0, ratio.BaseValue);
    }
}

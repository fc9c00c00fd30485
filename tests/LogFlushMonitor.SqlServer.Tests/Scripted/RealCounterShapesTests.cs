using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Simulation;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

public class RealCounterShapesTests
{
    [Fact]
    public void The_simulator_and_make_fleet_report_the_counter_set_a_real_server_does()
    {
        // DatabasesCounterSet feeds the simulator and the bench's make-fleet; RealCounterShapes is the transcription of
        // public captures and documentation the fake server answers with. They are written apart and must agree.
        var simulated = DatabasesCounterSet.Counters.Select(c => (c.Name, c.Type))
            .Concat(DatabasesCounterSet.Counters.Where(c => c.Base is not null).Select(c => (Name: c.Base!, Type: PerfCounterType.LargeRawBase)))
            .Order();
        var real = RealCounterShapes.DatabasesCounters.Select(c => (c.Name, c.Type)).Order();
        Assert.Equal(real, simulated);
        Assert.Equal(47, RealCounterShapes.DatabasesCounters.Count(c => c.Type != PerfCounterType.LargeRawBase));
    }

    [Fact]
    public void The_Linux_capture_internal_instances_make_Total_exceed_the_visible_databases()
    {
        // perfCounterQueryData.txt: _Total 521 Log Flushes/sec; master 169, model 74, msdb 79, tempdb 29 (351 together).
        Assert.Equal(521 - 351, RealCounterShapes.LinuxInternal.Sum(i => i.Flushes));
        Assert.Equal(13, RealCounterShapes.DatabasesCounters.Count(c => c.Captured));
    }
}

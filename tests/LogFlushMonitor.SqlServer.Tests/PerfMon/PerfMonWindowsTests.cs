using System.Diagnostics;
using System.Runtime.Versioning;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.PerfMon;
using CounterSample = LogFlushMonitor.Core.Samples.CounterSample;

namespace LogFlushMonitor.SqlServer.Tests.PerfMon;

/// <summary>Reads the real PerfMon counters of a SQL Server instance installed on this (Windows) machine.</summary>
public class PerfMonWindowsTests
{
    [SkippableFact]
    public void A_local_instance_delivers_its_real_log_counters()
    {
        Skip.IfNot(OperatingSystem.IsWindows(), "PerfMon exists only on Windows");
        var sqlInstance = OperatingSystem.IsWindows() ? LocalSqlInstance() : null;
        Skip.If(sqlInstance is null, "no local SQL Server instance (no SQLServer:Databases or MSSQL$NAME:Databases category)");
        var sink = new RecordingSink();
        var reader = new PerfMonCounterReader("local", sqlInstance, sink, TimeProvider.System);

        Assert.True(reader.IsAvailable);
        Assert.True(reader.Poll());

        var total = sink.Of<CounterSample>().Where(c => c.CounterInstance == "_Total").ToDictionary(c => c.CounterName);
        Assert.Equal(PerfCounterType.BulkCount, total["Log Flushes/sec"].CounterType);
        Assert.Equal(PerfCounterType.BulkCount, total["Log Bytes Flushed/sec"].CounterType);

        // master alone has a log file of some KB, and it has flushed since the instance started.
        Assert.True(total["Log File(s) Size (KB)"].Value > 0);
        Assert.True(total["Log Bytes Flushed/sec"].Value > 0);
        Assert.InRange(sink.Of<CounterSample>().Single(c => c.CounterInstance == "master" && c.CounterName == "Percent Log Used").Value, 0, 100);
        Assert.All(sink.Of<CounterSample>(), c => Assert.True(c.Value >= 0, c.CounterName));
        Assert.Equal(PollKind.Counters, Assert.IsType<PollCompleted>(sink.All[^1]).Kind);
    }

    /// <summary>The default instance if installed, else the first named one; null when none is.</summary>
    [SupportedOSPlatform("windows")]
    private static string? LocalSqlInstance()
    {
        if (PerformanceCounterCategory.Exists("SQLServer:Databases"))
        {
            return "";
        }

        var named = PerformanceCounterCategory.GetCategories()
            .Select(c => c.CategoryName)
            .FirstOrDefault(n => n.StartsWith("MSSQL$", StringComparison.OrdinalIgnoreCase) && n.EndsWith(":Databases", StringComparison.OrdinalIgnoreCase));
        return named?[6..named.IndexOf(':', StringComparison.Ordinal)];
    }
}

using System.Diagnostics;
using System.Runtime.Versioning;

namespace LogFlushMonitor.SqlServer.PerfMon;

/// <summary>
/// The only code that touches System.Diagnostics.PerformanceCounter. Callers reach it behind
/// <see cref="OperatingSystem.IsWindows"/>, so on Linux it is never compiled by the JIT and nothing throws
/// PlatformNotSupportedException.
/// </summary>
[SupportedOSPlatform("windows")]
internal static class WindowsPerfMon
{
    /// <summary>Whether the local machine has the category (a SQL Server instance of that name is installed).</summary>
    public static bool CategoryExists(string category) => PerformanceCounterCategory.Exists(category);

    /// <summary>
    /// Every instance of the wanted counters in one read of the category, raw values only (never NextValue, which
    /// computes its own rate); null when the category does not exist.
    /// </summary>
    public static List<PerfMonRow>? Read(string category, Func<string, bool> wantsCounter)
    {
        if (!PerformanceCounterCategory.Exists(category))
        {
            return null;
        }

        InstanceDataCollectionCollection data;
        try
        {
            data = new PerformanceCounterCategory(category).ReadCategory();
        }
        catch (InvalidOperationException)
        {
            // The category went away between the two calls (the service was stopped or uninstalled).
            return null;
        }

        var rows = new List<PerfMonRow>();
        foreach (InstanceDataCollection byInstance in data.Values)
        {
            if (!wantsCounter(byInstance.CounterName))
            {
                continue;
            }

            foreach (InstanceData item in byInstance.Values)
            {
                var sample = item.Sample;
                rows.Add(new PerfMonRow(byInstance.CounterName, item.InstanceName, (int)sample.CounterType, sample.RawValue, sample.BaseValue));
            }
        }

        return rows;
    }
}

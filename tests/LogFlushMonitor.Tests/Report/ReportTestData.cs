using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Tests.Report;

/// <summary>Recordings for the report tests in a temporary folder (deleted at the end).</summary>
public sealed class ReportTestData : IDisposable
{
    public static readonly DateTime Start = new(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);

    /// <summary>A database name a report must show as text, never run.</summary>
    public const string HostileDatabase = "<script>alert(1)</script>";

    /// <summary>An instance name with quotes and an ampersand.</summary>
    public const string HostileInstance = "sql-\"q\" & <b>x</b>";

    public ReportTestData() => Directory = System.IO.Directory.CreateTempSubdirectory("lfm-report-").FullName;

    public string Directory { get; }

    public string PathOf(string name) => System.IO.Path.Combine(Directory, name);

    /// <summary>
    /// The simulator's <c>mixed</c> scenario (three instances, eight databases, a WRITELOG spike 60 s in) at 2 % of
    /// its rates for four minutes, with one event in a thousand lost.
    /// </summary>
    public string Mixed()
    {
        var path = PathOf("mixed.ndjson");
        using var writer = new NdjsonSampleWriter(path);
        SimulationScenarios.Create("mixed", new SimulationOptions { RateScale = 0.02, EventLossRate = 0.001 }).Run(Start, TimeSpan.FromMinutes(4), writer);
        writer.Flush();
        return path;
    }

    /// <summary>Row-at-a-time flushes and WRITELOG waits of a database whose name is markup.</summary>
    public string Hostile()
    {
        var path = PathOf("hostile.ndjson");
        using var writer = new NdjsonSampleWriter(path);
        for (var i = 0; i < 600; i++)
        {
            var t = Start.AddMilliseconds(i * 100);
            writer.OnLogFlush(new LogFlushEvent(HostileInstance, 9, HostileDatabase, 512, (ulong)i + 1, t));
            writer.OnWait(new WaitEvent(HostileInstance, "WRITELOG", TimeSpan.FromMilliseconds(2), 9, HostileDatabase, t.AddTicks(10)));
        }

        writer.Flush();
        return path;
    }

    public void Dispose()
    {
        try
        {
            System.IO.Directory.Delete(Directory, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}

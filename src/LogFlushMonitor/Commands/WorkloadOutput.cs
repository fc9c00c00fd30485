using System.Globalization;
using LogFlushMonitor.Workload;

namespace LogFlushMonitor.Commands;

/// <summary>The table <c>workload</c> ends with: per scenario commits/s and rows/s, then the totals.</summary>
internal static class WorkloadOutput
{
    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;

    /// <summary>Writes the table of <paramref name="result"/>, and with <c>--overhead</c> what the event session changed.</summary>
    public static void WriteTable(TextWriter output, WorkloadResult result)
    {
        const string Format = "{0,-28} {1,8} {2,9} {3,10} {4,12} {5,10} {6,12} {7,12} {8,10} {9,9} {10,7}  {11}";
        output.WriteLine(string.Format(Ci, Format, "scenario", "sessions", "rows/tx", "duration", "commits", "commits/s", "rows", "rows/s", "commit ms", "p99 ms", "errors", "outcome"));
        foreach (var s in result.Scenarios)
        {
            output.WriteLine(string.Format(Ci, Format,
                WorkloadScenarios.NameOf(s.Scenario) + Phase(s.Phase), s.Sessions, s.RowsPerTransaction == 0 ? "all" : s.RowsPerTransaction.ToString("N0", Ci),
                Duration(s.Elapsed), s.Commits.ToString("N0", Ci), s.CommitsPerSecond.ToString("N1", Ci),
                s.Rows.ToString("N0", Ci), s.RowsPerSecond.ToString("N1", Ci), Ms(s.Latency?.MeanMs), Ms(s.Latency?.P99Ms), s.Errors.ToString("N0", Ci), Outcome(s)));
        }

        var seconds = result.Elapsed.TotalSeconds;
        output.WriteLine(string.Format(Ci, Format,
            "total", "", "", Duration(result.Elapsed), result.Commits.ToString("N0", Ci), (seconds > 0 ? result.Commits / seconds : 0).ToString("N1", Ci),
            result.Rows.ToString("N0", Ci), (seconds > 0 ? result.Rows / seconds : 0).ToString("N1", Ci), "", "", result.Errors.ToString("N0", Ci), ""));
        WriteOverhead(output, result);
    }

    /// <summary>
    /// With <c>--overhead</c>: per scenario, commits a second and commit latency without and with the event session, the
    /// change, and what the server measured the session cost; then what the reader must know.
    /// </summary>
    public static void WriteOverhead(TextWriter output, WorkloadResult result)
    {
        var pairs = OverheadComparison.Pairs(result.Scenarios);
        if (pairs.Count == 0 && (result.Notes?.Count ?? 0) == 0)
        {
            return;
        }

        const string Format = "  {0,-22} {1,14} {2,14} {3,22}";
        foreach (var p in pairs)
        {
            output.WriteLine();
            output.WriteLine(string.Create(Ci, $"What the event session cost: {WorkloadScenarios.NameOf(p.On.Scenario)}, {p.On.Sessions} session(s), {Duration(p.Off.Elapsed)} without it, then {Duration(p.On.Elapsed)} with it"));
            output.WriteLine(string.Format(Ci, Format, "", "session off", "session on", "change"));
            output.WriteLine(string.Format(Ci, Format, "commits/s", p.Off.CommitsPerSecond.ToString("N1", Ci), p.On.CommitsPerSecond.ToString("N1", Ci), Percent(p.CommitsPerSecondChange)));
            output.WriteLine(string.Format(Ci, Format, "commit latency, mean", Ms(p.Off.Latency?.MeanMs) + " ms", Ms(p.On.Latency?.MeanMs) + " ms", Delta(p.MeanDeltaMs, p.Off.Latency?.MeanMs)));
            output.WriteLine(string.Format(Ci, Format, "commit latency, p50", Ms(p.Off.Latency?.P50Ms) + " ms", Ms(p.On.Latency?.P50Ms) + " ms", Delta(p.P50DeltaMs, p.Off.Latency?.P50Ms)));
            output.WriteLine(string.Format(Ci, Format, "commit latency, p99", Ms(p.Off.Latency?.P99Ms) + " ms", Ms(p.On.Latency?.P99Ms) + " ms", Delta(p.P99DeltaMs, p.Off.Latency?.P99Ms)));
            if (p.On.SessionCost is { } cost)
            {
                output.WriteLine("  the session, as the server measured it: " + cost);
            }
        }

        if (pairs.Count > 0)
        {
            output.WriteLine("  Latency is each commit's round trip as the client timed it (percentiles within 3 %). Run-to-run noise is of the same order on a small change: repeat the run, longer (docs/operations.md, \"What the monitor costs the server\").");
        }

        foreach (var note in result.Notes ?? [])
        {
            output.WriteLine("  Note: " + note);
        }
    }

    private static string Phase(SessionPhase phase) => phase switch
    {
        SessionPhase.Off => " (session off)",
        SessionPhase.On => " (session on)",
        _ => "",
    };

    private static string Ms(double? ms) => ms is { } m ? m.ToString("N3", Ci) : "-";

    private static string Percent(double? change) => change is { } c ? string.Create(Ci, $"{c * 100:+0.0;-0.0;0.0} %") : "-";

    private static string Delta(double? deltaMs, double? baseMs) => deltaMs is { } d
        ? string.Create(Ci, $"{d:+0.000;-0.000;0.000} ms") + (baseMs is > 0 ? " (" + Percent(d / baseMs) + ")" : "")
        : "-";

    /// <summary>
    /// Each scenario's window (UTC, as <c>compare</c> takes it), and with two or more that ran, the <c>compare</c> line
    /// that judges the change between the first two: the monitor's recording (or the event session's .xel files) of the
    /// run holds both, one after the other (docs/compare.md).
    /// </summary>
    public static void WriteWindows(TextWriter output, WorkloadResult result)
    {
        var ran = result.Scenarios.Where(s => s.Commits > 0 && s.EndedUtc > s.StartedUtc).ToList();
        if (ran.Count == 0)
        {
            return;
        }

        output.WriteLine();
        output.WriteLine("windows (UTC):");
        foreach (var s in ran)
        {
            output.WriteLine(string.Create(Ci, $"  {WorkloadScenarios.NameOf(s.Scenario) + Phase(s.Phase),-28} {Window(s)}"));
        }

        if (ran.Count >= 2)
        {
            output.WriteLine(string.Create(Ci,
                $"what the change from {WorkloadScenarios.NameOf(ran[0].Scenario)}{Phase(ran[0].Phase)} to {WorkloadScenarios.NameOf(ran[1].Scenario)}{Phase(ran[1].Phase)} did, from the monitor's recording of this run (Recording:Path) or the session's .xel files:"));
            output.WriteLine($"  logflushmonitor compare RECORDING RECORDING --before-window {Window(ran[0])} --after-window {Window(ran[1])}");
        }
    }

    /// <summary>The scenario's run as a FROM/TO range, to the second (the first and last second, which hold a part of the ramp, left out).</summary>
    private static string Window(ScenarioResult s)
    {
        var from = new DateTime((s.StartedUtc.Ticks / TimeSpan.TicksPerSecond + 1) * TimeSpan.TicksPerSecond, DateTimeKind.Utc);
        var to = new DateTime(s.EndedUtc.Ticks / TimeSpan.TicksPerSecond * TimeSpan.TicksPerSecond, DateTimeKind.Utc);
        if (to <= from)
        {
            // A run shorter than two seconds: its exact times.
            return string.Create(Ci, $"{s.StartedUtc:yyyy-MM-ddTHH:mm:ss.fffffffZ}/{s.EndedUtc:yyyy-MM-ddTHH:mm:ss.fffffffZ}");
        }

        return string.Create(Ci, $"{from:yyyy-MM-ddTHH:mm:ssZ}/{to:yyyy-MM-ddTHH:mm:ssZ}");
    }

    /// <summary>"95.0 s", "2m 05s", "1h 02m".</summary>
    public static string Duration(TimeSpan t) => t.TotalSeconds switch
    {
        < 120 => string.Create(Ci, $"{t.TotalSeconds:0.0} s"),
        < 7200 => string.Create(Ci, $"{(int)t.TotalMinutes}m {t.Seconds:00}s"),
        _ => string.Create(Ci, $"{(int)t.TotalHours}h {t.Minutes:00}m"),
    };

    private static string Outcome(ScenarioResult s) => s.Outcome switch
    {
        WorkloadOutcome.Completed => s.Reconnects > 0 ? $"done, {s.Reconnects} reconnect(s)" : "done",
        WorkloadOutcome.Cancelled => "stopped (Ctrl+C)",
        _ => "failed",
    };
}

/// <summary>
/// The live progress line on stderr: rewritten in place every second on a terminal, otherwise one line every
/// <see cref="LogInterval"/> (a log file or a container's output gets whole lines, not carriage returns).
/// </summary>
internal sealed class WorkloadProgressLine(TextWriter output, bool terminal, TimeProvider time)
{
    /// <summary>Between lines when stderr is not a terminal.</summary>
    public static readonly TimeSpan LogInterval = TimeSpan.FromSeconds(5);

    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;
    private int _width;

    /// <summary>Prints the progress of <paramref name="read"/> until <paramref name="run"/> ends.</summary>
    public async Task FollowAsync(Func<WorkloadProgress?> read, Task run)
    {
        using var timer = new PeriodicTimer(terminal ? TimeSpan.FromSeconds(1) : LogInterval, time);
        var tick = timer.WaitForNextTickAsync().AsTask();
        while (await Task.WhenAny(tick, run).ConfigureAwait(false) == tick)
        {
            if (read() is { } p)
            {
                Write(Format(p));
            }

            tick = timer.WaitForNextTickAsync().AsTask();
        }

        if (terminal && _width > 0)
        {
            // Leave the last state on screen and the table below it.
            output.WriteLine();
        }
    }

    /// <summary>One progress line.</summary>
    public static string Format(WorkloadProgress p)
    {
        var s = p.Elapsed.TotalSeconds;
        var of = p.Duration is { } d ? " of " + WorkloadOutput.Duration(d) : "";
        return string.Create(Ci,
            $"workload {WorkloadScenarios.NameOf(p.Scenario)}: {WorkloadOutput.Duration(p.Elapsed)}{of}, {p.Commits:N0} commits ({(s > 0 ? p.Commits / s : 0):N0}/s), {p.Rows:N0} rows ({(s > 0 ? p.Rows / s : 0):N0}/s), {p.Errors:N0} errors");
    }

    private void Write(string line)
    {
        if (terminal)
        {
            // Pad over a longer previous line.
            output.Write("\r" + line.PadRight(_width));
            _width = line.Length;
        }
        else
        {
            output.WriteLine(line);
        }

        output.Flush();
    }
}

using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using LogFlushMonitor.Benchmarks.Fleet;

namespace LogFlushMonitor.Benchmarks.Soak;

/// <summary>
/// <c>soak</c>: runs the real service on the simulator at its highest rate (<c>run --simulate mixed --speed 1000</c>
/// by default) for some minutes and prints, once a minute, the resident set from /proc and the GC's own figures from
/// the runtime metrics on /metrics, then the RSS slope of the second half (does memory level off?).
/// </summary>
/// <remarks>
/// Results (2026-11-23, shared 2-core VM at load average 21-35, bench/README.md "Soak" has the tables): over 10 minutes
/// the resident set rose 103.7 → 112.8 MB (+0.67 MB/min in the second half, as issue 8 reported) and was flat for the
/// last three; over 30 minutes 102.0 → 121.8 MB, +0.23 MB/min in the second half, made of JIT warm-up (compiled methods
/// 3,310 → 6,492, flat after ~20 minutes), file-backed pages touched once, and gen2 survivors awaiting a gen2 GC (GC
/// heap +0.11 MB/min with no gen2 collection after minute 6); memory outside the GC stayed at 19-21 MB. Managed
/// allocation: 0-2 MB a minute at 8-89 M events a minute.
/// The table is what bench/README.md "Soak" quotes. Each row is one scrape of /metrics (one scrape a minute adds
/// nothing that would show in the figures) and one read of /proc/&lt;pid&gt;/status.
/// </remarks>
public static class SoakRun
{
    /// <summary>The command line of <c>soak</c>.</summary>
    public const string Usage = """
        soak [--minutes 10] [--scenario mixed] [--speed 1000] [--service <logflushmonitor.dll>] [--interval-seconds 60]
             [--env NAME=VALUE ...] [-- <service arguments>]
          Starts `dotnet <service> run --simulate <scenario> --speed <speed> --urls http://127.0.0.1:<free port>` and
          prints every interval: VmRSS and RssAnon (/proc), the GC heap after the last collection, the GC's committed
          memory, bytes allocated, gen2 collections and events aggregated (all from /metrics); at the end the RSS and
          GC heap slopes over the second half (least squares, MB/min).
        """;

    /// <summary>Runs the soak; arguments after <c>soak</c>.</summary>
    public static async Task<int> RunAsync(string[] args)
    {
        var options = Options.Parse(args);
        if (options is null)
        {
            await Console.Error.WriteLineAsync(Usage).ConfigureAwait(false);
            return 2;
        }

        if (!File.Exists(options.Service))
        {
            await Console.Error.WriteLineAsync($"No service build at {options.Service}: dotnet build -c Release src/LogFlushMonitor, or give --service <path to logflushmonitor.dll>.").ConfigureAwait(false);
            return 2;
        }

        var port = FreePort();
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var (key, value) in options.Environment)
        {
            start.Environment[key] = value;
        }

        foreach (var a in (string[])[options.Service, "run", "--simulate", options.Scenario, "--speed", options.Speed, "--urls", $"http://127.0.0.1:{port}", "--Log:SummaryInterval=00:00:00", .. options.ServiceArgs])
        {
            start.ArgumentList.Add(a);
        }

        var log = new StringBuilder();
        using var service = new Process { StartInfo = start };
        service.OutputDataReceived += (_, e) => Keep(log, e.Data);
        service.ErrorDataReceived += (_, e) => Keep(log, e.Data);
        service.Start();
        service.BeginOutputReadLine();
        service.BeginErrorReadLine();
        using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}"), Timeout = TimeSpan.FromSeconds(30) };
        try
        {
            Console.WriteLine($"service pid {service.Id}: dotnet {string.Join(' ', start.ArgumentList)}");
            Console.WriteLine($"{DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, {Environment.ProcessorCount} cores, load average {LoadAverage()}");
            Console.WriteLine("| minute | VmRSS MB | RssAnon MB | GC heap MB | GC committed MB | allocated MB (since last row) | gen2 GCs | events aggregated (since last row) | events lost (channel_full) |");
            Console.WriteLine("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
            var rows = new List<Row>();
            var clock = Stopwatch.StartNew();
            Row? previous = null;
            for (var minute = 0; minute <= options.Minutes * 60 / options.IntervalSeconds; minute++)
            {
                var due = TimeSpan.FromSeconds(minute * options.IntervalSeconds);
                if (due > clock.Elapsed)
                {
                    await Task.Delay(due - clock.Elapsed).ConfigureAwait(false);
                }

                if (service.HasExited)
                {
                    Console.Error.WriteLine($"The service exited with {service.ExitCode}. Its output:\n{Snapshot(log)}");
                    return 1;
                }

                var metrics = await ScrapeAsync(client).ConfigureAwait(false);
                if (metrics is null)
                {
                    continue; // not listening yet (first row only)
                }

                var (rss, anon) = Rss(service.Id);
                var row = new Row(clock.Elapsed.TotalMinutes, rss, anon, Sum(metrics, "dotnet_gc_last_collection_heap_size_bytes") / Mb,
                    Sum(metrics, "dotnet_gc_last_collection_memory_committed_size_bytes") / Mb, Sum(metrics, "dotnet_gc_heap_total_allocated_bytes_total") / Mb,
                    Sum(metrics, "dotnet_gc_collections_total{gc_heap_generation=\"gen2\""), Sum(metrics, "sqlserver_monitor_events_total"),
                    Sum(metrics, "sqlserver_monitor_events_lost_total{loss_kind=\"channel_full\""));
                rows.Add(row);
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"| {row.Minute:0.0} | {row.RssMb:0.0} | {row.AnonMb:0.0} | {row.HeapMb:0.0} | {row.CommittedMb:0.0} | {row.AllocatedMb - (previous?.AllocatedMb ?? 0):N0} | {row.Gen2:0} | {row.Events - (previous?.Events ?? 0):N0} | {row.Lost:N0} |"));
                previous = row;
            }

            var half = rows.Where(r => r.Minute >= options.Minutes / 2.0).ToList();
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"second half ({half.Count} rows): VmRSS slope {Slope(half, r => r.RssMb):+0.00;-0.00} MB/min, RssAnon {Slope(half, r => r.AnonMb):+0.00;-0.00} MB/min, GC heap {Slope(half, r => r.HeapMb):+0.00;-0.00} MB/min; load average {LoadAverage()}"));
            return rows.Count > 1 ? 0 : 1;
        }
        finally
        {
            if (!service.HasExited)
            {
                service.Kill(entireProcessTree: true);
            }

            await service.WaitForExitAsync().ConfigureAwait(false);
        }
    }

    private const double Mb = 1024 * 1024;

    private sealed record Row(double Minute, double RssMb, double AnonMb, double HeapMb, double CommittedMb, double AllocatedMb, double Gen2, double Events, double Lost);

    private static void Keep(StringBuilder log, string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (log)
        {
            if (log.Length < 64 * 1024)
            {
                log.AppendLine(line);
            }
        }
    }

    private static string Snapshot(StringBuilder log)
    {
        lock (log)
        {
            return log.ToString();
        }
    }

    private static async Task<string[]?> ScrapeAsync(HttpClient client)
    {
        for (var attempt = 0; attempt < 60; attempt++)
        {
            try
            {
                var text = await client.GetStringAsync(new Uri("/metrics", UriKind.Relative)).ConfigureAwait(false);
                return text.Split('\n');
            }
            catch (HttpRequestException)
            {
                await Task.Delay(TimeSpan.FromSeconds(1)).ConfigureAwait(false);
            }
        }

        return null;
    }

    /// <summary>The sum of every sample whose line starts with <paramref name="prefix"/> (a family name, optionally with the start of its labels).</summary>
    private static double Sum(string[] lines, string prefix) => lines
        .Where(l => l.StartsWith(prefix, StringComparison.Ordinal) && (l.Length == prefix.Length || l[prefix.Length] is '{' or ' ' or ','))
        .Sum(l => double.Parse(l[(l.LastIndexOf(' ') + 1)..], CultureInfo.InvariantCulture));

    private static (double Rss, double Anon) Rss(int pid)
    {
        var fields = File.ReadLines($"/proc/{pid}/status").Select(l => l.Split(':', 2)).Where(p => p.Length == 2)
            .ToDictionary(p => p[0], p => p[1].Trim(), StringComparer.Ordinal);
        double Value(string key) => long.Parse(fields[key].Split(' ')[0], CultureInfo.InvariantCulture) / 1024.0;
        return (Value("VmRSS"), Value("RssAnon"));
    }

    private static double Slope(List<Row> rows, Func<Row, double> value)
    {
        if (rows.Count < 2)
        {
            return double.NaN;
        }

        var mx = rows.Average(r => r.Minute);
        var my = rows.Average(value);
        var sxx = rows.Sum(r => (r.Minute - mx) * (r.Minute - mx));
        return rows.Sum(r => (r.Minute - mx) * (value(r) - my)) / sxx;
    }

    private static string LoadAverage() => File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "?";

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    private sealed record Options(string Service, int Minutes, string Scenario, string Speed, int IntervalSeconds, string[] ServiceArgs, List<(string Key, string Value)> Environment)
    {
        public static Options? Parse(string[] args)
        {
            var service = Path.Combine(ServiceScrapeMemory.RepositoryRoot(), "src", "LogFlushMonitor", "bin", "Release", "net10.0", "logflushmonitor.dll");
            int minutes = 10, interval = 60;
            string scenario = "mixed", speed = "1000";
            var rest = Array.Empty<string>();
            var environment = new List<(string, string)>();
            for (var i = 0; i < args.Length; i++)
            {
                string? Next() => i + 1 < args.Length ? args[++i] : null;
                switch (args[i])
                {
                    case "--service": service = Path.GetFullPath(Next() ?? ""); break;
                    case "--minutes" when int.TryParse(Next(), CultureInfo.InvariantCulture, out var m) && m > 0: minutes = m; break;
                    case "--interval-seconds" when int.TryParse(Next(), CultureInfo.InvariantCulture, out var s) && s > 0: interval = s; break;
                    case "--scenario": scenario = Next() ?? ""; break;
                    case "--speed": speed = Next() ?? ""; break;
                    case "--env" when Next()?.Split('=', 2) is [var key, var value]: environment.Add((key, value)); break;
                    case "--": rest = args[(i + 1)..]; i = args.Length; break;
                    default: return null;
                }
            }

            return scenario.Length == 0 || speed.Length == 0 ? null : new Options(service, minutes, scenario, speed, interval, rest, environment);
        }
    }
}

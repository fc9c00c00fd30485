using System.Diagnostics;
using System.Globalization;
using System.IO.Compression;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Benchmarks.Fleet;

/// <summary>
/// <c>scrape-rss</c>: starts the real service process on a fleet recording, scrapes /metrics many times and
/// prints the process's resident set (/proc/&lt;pid&gt;/status) at checkpoints with the scrape's size and time.
/// </summary>
/// <remarks>
/// The service replays the file as fast as it can (<c>--speed 0</c>); scraping starts once it logged that the
/// replay finished, so every scrape serves the same, complete fleet. The first scrape is checked: it must carry
/// every metric family the file populates and the expected number of databases, else the run stops (a small
/// scrape would make the memory figures meaningless).
/// </remarks>
public static partial class ServiceScrapeMemory
{
    private static readonly int[] Checkpoints = [1, 10, 100, 500, 1000];

    /// <summary>
    /// Metric families the fleet file populates at the default settings, by Prometheus name (the sample lines start with
    /// these); the sqlserver_performance_* families fill only with counters opted in (Sources:SqlServer:Counters).
    /// </summary>
    private static readonly string[] Families =
    [
        "sqlserver_log_flush_write_size_bytes_bucket", "sqlserver_log_flush_duration_seconds_bucket", "sqlserver_database_wait_duration_seconds_bucket",
        "sqlserver_log_flushes_total", "sqlserver_log_flushed_bytes_total", "sqlserver_log_flush_waits_total", "sqlserver_log_flush_wait_time_seconds_total",
        "sqlserver_log_usage_ratio", "sqlserver_log_used_size_bytes", "sqlserver_log_size_bytes",
        "sqlserver_wait_tasks_total", "sqlserver_wait_time_seconds_total", "sqlserver_wait_signal_time_seconds_total",
        "sqlserver_log_file_writes_total", "sqlserver_log_file_written_bytes_total", "sqlserver_log_file_write_stall_seconds_total",
        "sqlserver_instance_start_time_seconds", "sqlserver_monitor_events_total", "sqlserver_monitor_events_lost_total", "sqlserver_monitor_events_loss_ratio",
    ];

    /// <summary>Runs the measurement; arguments after <c>scrape-rss</c>, see <see cref="Usage"/>.</summary>
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
            await Console.Error.WriteLineAsync($"No service build at {options.Service}: dotnet build -c Release src/LogFlushMonitor, or give --service <path to logflushmonitor.dll or to a native logflushmonitor>.").ConfigureAwait(false);
            return 2;
        }

        if (!File.Exists(options.Fleet))
        {
            Console.WriteLine($"{options.Fleet} does not exist: writing a {options.Instances} x {options.Databases} fleet there.");
            FleetFileGenerator.Write(options.Fleet, options.Instances, options.Databases);
        }

        var port = FreePort();
        var output = new StringBuilder();
        var finished = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        // A .dll is the JIT build, run by dotnet; anything else is an executable, e.g. the NativeAOT build.
        var jit = options.Service.EndsWith(".dll", StringComparison.OrdinalIgnoreCase);
        var start = new ProcessStartInfo(jit ? "dotnet" : options.Service)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (var (key, value) in options.Environment)
        {
            start.Environment[key] = value;
        }

        foreach (var a in (string[])[.. jit ? [options.Service] : Array.Empty<string>(), "run", "--replay", options.Fleet, "--speed", "0", "--urls", $"http://127.0.0.1:{port}", "--Log:SummaryInterval=00:00:00", .. options.ServiceArgs])
        {
            start.ArgumentList.Add(a);
        }

        using var service = new Process { StartInfo = start };
        DataReceivedEventHandler collect = (_, e) =>
        {
            if (e.Data is null)
            {
                return;
            }

            lock (output)
            {
                output.AppendLine(e.Data);
            }

            if (e.Data.Contains("Replay of", StringComparison.Ordinal) && e.Data.Contains("finished", StringComparison.Ordinal))
            {
                finished.TrySetResult();
            }
        };
        service.OutputDataReceived += collect;
        service.ErrorDataReceived += collect;
        var watch = Stopwatch.StartNew();
        service.Start();
        service.BeginOutputReadLine();
        service.BeginErrorReadLine();
        try
        {
            var exited = service.WaitForExitAsync();
            // Three minutes, and one more per 2,000 databases: 32,000 databases are about 4.7 million lines.
            var replayLimit = TimeSpan.FromMinutes(3 + (options.ExpectedDatabases / 2000));
            if (await Task.WhenAny(finished.Task, exited, Task.Delay(replayLimit)).ConfigureAwait(false) != finished.Task)
            {
                lock (output)
                {
                    Console.Error.WriteLine($"The service did not finish the replay (exited: {service.HasExited}). Its output:\n{output}");
                }

                return 1;
            }

            Console.WriteLine($"service pid {service.Id} on port {port}; replay of {options.Fleet} finished after {watch.Elapsed.TotalSeconds:0.0} s; RSS {Rss(service.Id)}");
            Console.WriteLine($"service arguments: {string.Join(' ', start.ArgumentList)}");
            var result = await ScrapeAsync(options, port, service.Id).ConfigureAwait(false);
            await StopAsync(service, output).ConfigureAwait(false);
            return result;
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

    private static async Task<int> ScrapeAsync(Options options, int port, int pid)
    {
        using var client = new HttpClient(new SocketsHttpHandler { AutomaticDecompression = DecompressionMethods.None })
        {
            BaseAddress = new Uri($"http://127.0.0.1:{port}"),
            Timeout = TimeSpan.FromSeconds(60),
        };
        var buffer = new byte[64 * 1024];
        var window = Stopwatch.StartNew();
        var windowStart = 0;
        var rows = 0;
        Console.WriteLine($"encoding {(options.Gzip ? "gzip" : "plain")}; {options.Scrapes} scrapes one after another");
        Console.WriteLine("| scrapes | VmRSS MB | RssAnon MB | RssFile MB | VmHWM MB | ms per scrape (since last row) | CPU ms per scrape (since last row) | bytes on the wire | text bytes |");
        Console.WriteLine("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        var cpuStart = CpuMilliseconds(pid);
        var slowest = TimeSpan.Zero;
        var overTenSeconds = 0;
        for (var i = 1; i <= options.Scrapes; i++)
        {
            var one = Stopwatch.StartNew();
            var check = Array.IndexOf(Checkpoints, i) >= 0 || i % 1000 == 0 || i == options.Scrapes;
            using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
            if (options.Gzip)
            {
                request.Headers.AcceptEncoding.ParseAdd("gzip");
            }

            using var response = await client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            await using var body = await response.Content.ReadAsStreamAsync().ConfigureAwait(false);
            if (!check)
            {
                await DrainAsync(body, buffer).ConfigureAwait(false);
                Slowest(one.Elapsed);
                continue;
            }

            // Checkpoint: keep this body to count its text and check it.
            using var copy = new MemoryStream();
            await body.CopyToAsync(copy).ConfigureAwait(false);
            Slowest(one.Elapsed);
            var wireBytes = copy.Length;
            var elapsed = window.Elapsed.TotalMilliseconds / (i - windowStart);
            var gzip = response.Content.Headers.ContentEncoding.Contains("gzip");
            if (gzip != options.Gzip)
            {
                Console.Error.WriteLine($"Asked for {(options.Gzip ? "gzip" : "plain text")} but got Content-Encoding '{string.Join(',', response.Content.Headers.ContentEncoding)}'.");
                return 1;
            }

            var text = Text(copy, gzip);
            if (i == 1 && !Check(text, options))
            {
                return 1;
            }

            var cpu = CpuMilliseconds(pid);
            var cpuPerScrape = (cpu - cpuStart) / (i - windowStart);
            Console.WriteLine($"| {i:N0} | {Rss(pid)} | {elapsed:0.0} | {cpuPerScrape:0.0} | {wireBytes:N0} | {Encoding.UTF8.GetByteCount(text):N0} |");
            rows++;
            windowStart = i;
            cpuStart = cpu;
            window.Restart();
        }

        Console.WriteLine($"slowest scrape {slowest.TotalMilliseconds:N0} ms; {overTenSeconds} of {options.Scrapes} took longer than 10 s (Prometheus' default scrape timeout)");
        return rows > 0 ? 0 : 1;

        void Slowest(TimeSpan elapsed)
        {
            slowest = elapsed > slowest ? elapsed : slowest;
            overTenSeconds += elapsed > TimeSpan.FromSeconds(10) ? 1 : 0;
        }
    }

    /// <summary>
    /// Stops the service as systemd or Kubernetes would (SIGTERM) and prints how long it took and its exit code: at tens
    /// of thousands of databases the stop was once longer than a pod's grace period.
    /// </summary>
    private static async Task StopAsync(Process service, StringBuilder output)
    {
        var rssBefore = Rss(service.Id);
        var watch = Stopwatch.StartNew();
        using (var kill = Process.Start("kill", ["-TERM", service.Id.ToString(CultureInfo.InvariantCulture)]))
        {
            await kill.WaitForExitAsync().ConfigureAwait(false);
        }

        var exited = service.WaitForExitAsync();
        if (await Task.WhenAny(exited, Task.Delay(TimeSpan.FromSeconds(60))).ConfigureAwait(false) != exited)
        {
            Console.WriteLine($"SIGTERM: still running after 60 s (resident before the stop: {rssBefore} MB); killed");
            return;
        }

        string tail;
        lock (output)
        {
            tail = string.Join(" / ", output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries).TakeLast(2));
        }

        Console.WriteLine($"SIGTERM: exited {service.ExitCode} after {watch.Elapsed.TotalSeconds:0.00} s; last lines: {tail}");
    }

    private static async Task DrainAsync(Stream body, byte[] buffer)
    {
        while (await body.ReadAsync(buffer).ConfigureAwait(false) > 0)
        {
        }
    }

    private static string Text(MemoryStream copy, bool gzip)
    {
        copy.Position = 0;
        if (!gzip)
        {
            return Encoding.UTF8.GetString(copy.GetBuffer(), 0, (int)copy.Length);
        }

        using var unzip = new GZipStream(copy, CompressionMode.Decompress, leaveOpen: true);
        using var reader = new StreamReader(unzip, Encoding.UTF8);
        return reader.ReadToEnd();
    }

    /// <summary>Prints the series per family and fails when a family is missing or databases are short.</summary>
    private static bool Check(string text, Options options)
    {
        var lines = text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var series = lines.Where(l => !l.StartsWith('#')).ToArray();
        var missing = Families.Where(f => !series.Any(l => l.StartsWith(f, StringComparison.Ordinal))).ToList();
        var databases = series
            .Where(l => l.StartsWith("sqlserver_log_flush_write_size_bytes_count", StringComparison.Ordinal))
            .Select(l => DatabaseLabel().Match(l))
            .Where(m => m.Success)
            .Select(m => m.Value)
            .ToHashSet(StringComparer.Ordinal);
        var scopeShare = ScopeLabels().Matches(text).Sum(m => m.Length) / (double)Math.Max(1, text.Length);
        // Series of the databases: every sample with a database label (the instance-wide ones are counted apart).
        var perDatabase = series.Count(l => l.Contains("sqlserver_database_name=", StringComparison.Ordinal));
        var overflow = series.Where(l => l.Contains("otel_metric_overflow=\"true\"", StringComparison.Ordinal))
            .Select(l => l[..l.IndexOfAny(['{', ' '])]).Distinct(StringComparer.Ordinal).ToList();
        // A histogram's series is its _count line (its _bucket and _sum lines belong to the same series).
        var maxPerMetric = series.Where(l => !LineName(l).EndsWith("_bucket", StringComparison.Ordinal) && !LineName(l).EndsWith("_sum", StringComparison.Ordinal))
            .GroupBy(SeriesFamily, StringComparer.Ordinal).Max(g => g.Count());
        Console.WriteLine($"series: {perDatabase / (double)Math.Max(1, options.ExpectedDatabases):0.0} per database ({perDatabase:N0} with a database label, {series.Length - perDatabase:N0} without); "
            + $"at most {maxPerMetric:N0} series in one metric; overflow: {(overflow.Count == 0 ? "none" : string.Join(", ", overflow))}");
        Console.WriteLine($"first scrape: {text.Length:N0} characters, {lines.Length:N0} lines, {series.Length:N0} samples, "
            + $"{Families.Length - missing.Count}/{Families.Length} metric families populated, {databases.Count:N0} databases with write-size histograms, "
            + $"otel_scope labels {scopeShare:P0} of the text");
        var expected = options.ExpectedDatabases;
        // Databases folded into an overflow series are counted there (and by sqlserver_monitor_series_overflow): a
        // fleet past Exporters:CardinalityLimit is measured as it is, not refused.
        if (missing.Count > 0 || (expected > 0 && databases.Count < expected && overflow.Count == 0))
        {
            Console.Error.WriteLine($"The scrape is not the full fleet: missing families [{string.Join(", ", missing)}], {databases.Count} of {expected} databases.");
            return false;
        }

        return true;
    }

    /// <summary>A sample line's metric family: its name without the histogram suffixes.</summary>
    private static string LineName(string line) => line[..line.IndexOfAny(['{', ' '])];

    private static string SeriesFamily(string line)
    {
        var name = LineName(line);
        foreach (var suffix in (string[])["_bucket", "_count", "_sum"])
        {
            if (name.EndsWith(suffix, StringComparison.Ordinal))
            {
                return name[..^suffix.Length];
            }
        }

        return name;
    }

    /// <summary>User plus system CPU time of the process so far (/proc/&lt;pid&gt;/stat fields 14 and 15, in clock ticks of 10 ms).</summary>
    private static double CpuMilliseconds(int pid)
    {
        var stat = File.ReadAllText($"/proc/{pid}/stat");
        var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        // fields[0] is the state (field 3): utime is field 14, stime field 15.
        var ticks = long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture);
        return ticks * 10.0;
    }

    /// <summary>VmRSS, RssAnon, RssFile and VmHWM of the process in MB, as table cells.</summary>
    private static string Rss(int pid)
    {
        var fields = File.ReadLines($"/proc/{pid}/status")
            .Select(l => l.Split(':', 2))
            .Where(p => p.Length == 2)
            .ToDictionary(p => p[0], p => p[1].Trim(), StringComparer.Ordinal);
        string Mb(string key) => fields.TryGetValue(key, out var v)
            ? (long.Parse(v.Split(' ')[0], CultureInfo.InvariantCulture) / 1024.0).ToString("0.0", CultureInfo.InvariantCulture)
            : "?";
        return $"{Mb("VmRSS")} | {Mb("RssAnon")} | {Mb("RssFile")} | {Mb("VmHWM")}";
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    [GeneratedRegex("sqlserver_database_name=\"[^\"]*\"[^}]*sqlserver_instance_name=\"[^\"]*\"")]
    private static partial Regex DatabaseLabel();

    [GeneratedRegex(",?otel_scope_name=\"[^\"]*\"(,otel_scope_version=\"[^\"]*\")?")]
    private static partial Regex ScopeLabels();

    /// <summary>The command line of <c>scrape-rss</c>.</summary>
    public const string Usage = """
        scrape-rss [--service <logflushmonitor.dll | native logflushmonitor>] [--fleet <fleet.ndjson>] [--scrapes 1000] [--plain]
                   [--instances 10 --databases 100] [--env NAME=VALUE ...]
                   [-- <service arguments, e.g. --Exporters:Prometheus:ScopeLabels=false>]
          Starts `dotnet <service> run --replay <fleet> --speed 0 --urls http://127.0.0.1:<free port>` (the executable itself
          when --service is not a .dll, e.g. the NativeAOT build), waits for the replay
          to finish and scrapes /metrics --scrapes times (gzip unless --plain), printing the resident set at 1, 10, 100,
          500, 1,000 and every further 1,000 scrapes. --env sets an environment variable of the service only (e.g.
          DOTNET_GCHeapHardLimit=0x3000000). A missing fleet file is generated first (make-fleet).
        """;

    private sealed record Options(string Service, string Fleet, int Scrapes, bool Gzip, int Instances, int Databases, string[] ServiceArgs, List<(string Key, string Value)> Environment)
    {
        public int ExpectedDatabases => Instances * Databases;

        public static Options? Parse(string[] args)
        {
            var service = Path.Combine(RepositoryRoot(), "src", "LogFlushMonitor", "bin", "Release", "net10.0", "logflushmonitor.dll");
            var fleet = Path.Combine(Path.GetTempPath(), "logflushmonitor-fleet-10x100.ndjson");
            int scrapes = 1000, instances = 10, databases = 100;
            var gzip = true;
            var rest = Array.Empty<string>();
            var environment = new List<(string, string)>();
            for (var i = 0; i < args.Length; i++)
            {
                string Next() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"{args[i]} needs a value");
                switch (args[i])
                {
                    case "--service": service = Path.GetFullPath(Next()); break;
                    case "--fleet": fleet = Path.GetFullPath(Next()); break;
                    case "--scrapes": scrapes = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                    case "--instances": instances = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                    case "--databases": databases = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                    case "--plain": gzip = false; break;
                    case "--env":
                        var pair = Next().Split('=', 2);
                        if (pair.Length != 2)
                        {
                            return null;
                        }

                        environment.Add((pair[0], pair[1]));
                        break;
                    case "--": rest = args[(i + 1)..]; i = args.Length; break;
                    default: return null;
                }
            }

            return new Options(service, fleet, scrapes, gzip, instances, databases, rest, environment);
        }
    }

    /// <summary>The directory holding LogFlushMonitor.sln, found upwards from the working directory.</summary>
    internal static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(Environment.CurrentDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
            {
                return dir.FullName;
            }
        }

        return Environment.CurrentDirectory;
    }
}

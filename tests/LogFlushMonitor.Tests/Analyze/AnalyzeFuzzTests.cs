using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using System.Text.Json;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Report;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.TestSupport;
using Xunit.Abstractions;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// The fuzzers of issue 31 (hostile input, round 3), in the suite: mutants of a .xel file and of an NDJSON recording
/// go through <c>analyze</c> (the JSON report) and <c>report</c> (the page), and each must end without an exception,
/// within a time limit, with no negative or impossible figure in the JSON (a span or a duration past what the input
/// and the clock rule allow, <see cref="XelClock"/>), and with a page and managed allocation within a bound. In the
/// suite each runs briefly with a fixed seed; <c>LFM_FUZZ_ITERATIONS=18000</c> (and <c>LFM_FUZZ_SEED</c>) runs it longer
/// on demand (docs/analyze.md, "Fuzzing").
/// </summary>
public sealed class AnalyzeFuzzTests(ITestOutputHelper output) : IDisposable
{
    private static readonly DateTime Start = AnalyzeTestFiles.Start;
    private static readonly TimeSpan Hang = TimeSpan.FromSeconds(30);

    /// <summary>The page of a mutant: the clean page is about 60 KB; a page of megabytes is the finding of item 4.</summary>
    private const int MaxPageChars = 1 << 20;

    /// <summary>Managed allocation of one mutant's analyze and report (the finding allocated gigabytes).</summary>
    private const long MaxAllocatedBytes = 256L << 20;

    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    private static int Iterations(int brief) =>
        int.TryParse(Environment.GetEnvironmentVariable("LFM_FUZZ_ITERATIONS"), NumberStyles.None, CultureInfo.InvariantCulture, out var n) && n > 0 ? n : brief;

    private static int Seed(int fixedSeed) =>
        int.TryParse(Environment.GetEnvironmentVariable("LFM_FUZZ_SEED"), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var s) ? s : fixedSeed;

    [Fact]
    public async Task Xel_mutants_give_no_exception_no_hang_no_negative_or_impossible_figure_and_a_bounded_report()
    {
        var clean = _files.Write("seed.xel", w =>
        {
            var rng = new Random(31);
            for (var i = 0; i < 1500; i++)
            {
                var t = Start.AddTicks(i * 40_000L);
                var db = (uint)(5 + (i % 3));
                w.LogFlushStart(t, db, "db" + db, i % 50 == 0 ? 61440u : 512u, (ulong)i + 1, (ulong)(3 * i) + 1);
                w.LogFlushComplete(t.AddTicks(rng.Next(100, 20_000)), db, "db" + db, (ulong)i + 1, 2, (ulong)(3 * i) + 2);
                w.WaitCompleted(t.AddTicks(rng.Next(100, 20_000)), XelWriter.WriteLogKey, (ulong)rng.Next(0, 20), db, (ulong)(3 * i) + 3, databaseName: "db" + db, clientApp: "app" + (i % 4));
            }
        }, bufferSize: 4096);
        var bytes = await File.ReadAllBytesAsync(clean);
        var records = new List<long>();
        using (var reader = XelReader.Open(clean))
        {
            while (reader.Read())
            {
                records.Add(reader.Current.Position);
            }
        }

        var cleanSpan = Assert.Single(Run(clean).Json.GetProperty("databases").EnumerateArray().Select(d => d.GetProperty("span_seconds").GetDouble()).Distinct().Take(1));
        var tolerance = XelClock.Tolerance.TotalSeconds;
        var iterations = Iterations(300);
        var rng = new Random(Seed(20261131));
        var path = _files.PathOf("mutant.xel");
        int damaged = 0, ok = 0;
        for (var i = 0; i < iterations; i++)
        {
            var copy = (byte[])bytes.Clone();
            var how = Mutate(copy, records, rng);
            await File.WriteAllBytesAsync(path, copy);
            var (json, page, allocated) = await Within(() => Run(path), $"mutant {i} ({how})");
            var statuses = json.GetProperty("files").EnumerateArray().Select(f => f.GetProperty("status").GetString()).ToList();
            (statuses.All(s => s == "ok") ? ref ok : ref damaged)++;
            NoNegativeNumber(json, how, "");
            foreach (var db in json.GetProperty("databases").EnumerateArray())
            {
                var span = db.GetProperty("span_seconds").GetDouble();
                Assert.True(span <= cleanSpan + (2 * tolerance), $"{how}: span {span} s (the clean file spans {cleanSpan} s)");
                foreach (var figure in (string[])["flush_duration_ms", "writelog_wait_ms"])
                {
                    if (db.GetProperty(figure) is { ValueKind: JsonValueKind.Object } d)
                    {
                        Assert.True(d.GetProperty("max").GetDouble() <= (cleanSpan + (2 * tolerance)) * 1000 * 1.1, $"{how}: {figure}.max {d.GetProperty("max").GetDouble()} ms");
                    }
                }
            }

            Assert.True(page.Length < MaxPageChars, $"{how}: a page of {page.Length:N0} characters");
            Assert.True(allocated < MaxAllocatedBytes, $"{how}: {allocated:N0} bytes allocated");
        }

        output.WriteLine($"{iterations} .xel mutants: {ok} ok, {damaged} not ok");
        Assert.True(damaged > 0 && ok > 0, $"{ok} ok, {damaged} not: the mutations must reach both outcomes");
    }

    [Fact]
    public async Task Recording_mutants_give_no_exception_no_hang_no_negative_or_impossible_figure_and_a_bounded_report()
    {
        var lines = new List<string>();
        var rng0 = new Random(7);
        for (var i = 0; i < 600; i++)
        {
            var t = Start.AddMilliseconds(i * 10).ToString("O", CultureInfo.InvariantCulture);
            lines.Add($$"""{"type":"flush","t":"{{t}}","instance":"sql1","db_id":{{5 + (i % 3)}},"db":"db{{i % 3}}","write_size":{{(i % 20 == 0 ? 61440 : 512)}},"block":{{i}}}""");
            lines.Add($$"""{"type":"flush_complete","t":"{{t}}","instance":"sql1","db_id":{{5 + (i % 3)}},"db":"db{{i % 3}}","duration_us":{{rng0.Next(50, 3000)}},"block":{{i}}}""");
            lines.Add($$"""{"type":"wait","t":"{{t}}","instance":"sql1","db_id":{{5 + (i % 3)}},"db":"db{{i % 3}}","wait_type":"WRITELOG","duration_us":{{rng0.Next(50, 30000)}},"app":"app{{i % 4}}"}""");
            if (i % 100 == 0)
            {
                lines.Add($$"""{"type":"loss","instance":"sql1","kind":"sequence_gap","count":{{i + 1}}}""");
            }
        }

        var iterations = Iterations(300);
        var rng = new Random(Seed(20261132));
        var path = _files.PathOf("mutant.ndjson");
        int damaged = 0, ok = 0;
        for (var i = 0; i < iterations; i++)
        {
            var copy = new List<string>(lines);
            var how = Mutate(copy, rng);
            await File.WriteAllTextAsync(path, string.Join("\n", copy) + "\n");
            var (json, page, allocated) = await Within(() => Run(path), $"mutant {i} ({how})");
            (json.GetProperty("files")[0].GetProperty("status").GetString() == "ok" ? ref ok : ref damaged)++;
            NoNegativeNumber(json, how, "");
            foreach (var db in json.GetProperty("databases").EnumerateArray())
            {
                foreach (var figure in (string[])["flush_duration_ms", "writelog_wait_ms"])
                {
                    if (db.GetProperty(figure) is { ValueKind: JsonValueKind.Object } d)
                    {
                        Assert.True(d.GetProperty("max").GetDouble() <= TimeSpan.FromDays(1).TotalMilliseconds * 1.1, $"{how}: {figure}.max {d.GetProperty("max").GetDouble()} ms");
                    }
                }
            }

            Assert.True(page.Length < MaxPageChars, $"{how}: a page of {page.Length:N0} characters");
            Assert.True(allocated < MaxAllocatedBytes, $"{how}: {allocated:N0} bytes allocated");
        }

        output.WriteLine($"{iterations} recording mutants: {ok} ok, {damaged} not ok");
        Assert.True(damaged > 0 && ok > 0, $"{ok} ok, {damaged} not");
    }

    private static async Task<T> Within<T>(Func<T> run, string what)
    {
        var task = Task.Run(run);
        Assert.True(await Task.WhenAny(task, Task.Delay(Hang)) == task, $"{what} did not finish within {Hang}");
        return await task;
    }

    /// <summary>analyze's JSON and report's page of <paramref name="path"/>, with the managed bytes both allocated (one thread).</summary>
    private static (JsonElement Json, string Page, long Allocated) Run(string path)
    {
        var before = GC.GetAllocatedBytesForCurrentThread();
        var settings = new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Threads = 1 };
        Assert.True(AnalyzeRunner.TryExpand(settings.Inputs, TextWriter.Null, out var groups));
        var series = new TimeSeriesRecorder();
        var report = AnalyzeRunner.Analyze(settings, groups, TextWriter.Null, CancellationToken.None, series);
        var json = new StringWriter();
        JsonReportWriter.Write(report, ExitCodes.Of(report.Outcome), json);
        var page = new StringWriter();
        HtmlReportWriter.Write(report, series, Start, page);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        return (JsonDocument.Parse(json.ToString()).RootElement.Clone(), page.ToString(), allocated);
    }

    private static void NoNegativeNumber(JsonElement e, string how, string at)
    {
        switch (e.ValueKind)
        {
            case JsonValueKind.Object:
                foreach (var p in e.EnumerateObject())
                {
                    NoNegativeNumber(p.Value, how, at + "." + p.Name);
                }

                break;
            case JsonValueKind.Array:
                var i = 0;
                foreach (var item in e.EnumerateArray())
                {
                    NoNegativeNumber(item, how, $"{at}[{i++}]");
                }

                break;
            case JsonValueKind.Number:
                Assert.True(e.GetDouble() >= 0 && double.IsFinite(e.GetDouble()), $"{how}: {at} is {e.GetRawText()}");
                break;
        }
    }

    /// <summary>One mutation of the .xel bytes: the kinds the round-3 fuzzing used (clock halves, fields, bytes, bits).</summary>
    private static string Mutate(byte[] copy, List<long> records, Random rng)
    {
        var record = (int)records[rng.Next(records.Count)];
        switch (rng.Next(5))
        {
            case 0:
                BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(record + 16), (uint)rng.NextInt64(0, 1L << 32));
                return $"high half of the clock of the record at {record}";
            case 1:
                BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(record + 12), (uint)rng.NextInt64(0, 1L << 32));
                return $"low half of the clock of the record at {record}";
            case 2:
                var field = record + 24 + (rng.Next(6) * 4);
                BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(Math.Min(field, copy.Length - 4)), (uint)rng.NextInt64(0, 1L << 32));
                return $"4 payload bytes at {field}";
            case 3:
                var at = rng.Next(512, copy.Length - 8);
                rng.NextBytes(copy.AsSpan(at, rng.Next(1, 9)));
                return $"bytes at {at}";
            default:
                var bit = rng.Next(512 * 8, copy.Length * 8);
                copy[bit / 8] ^= (byte)(1 << (bit % 8));
                return $"bit {bit % 8} of byte {bit / 8}";
        }
    }

    private static readonly string[] Numbers = ["9223372036854775807", "-9223372036854775808", "-1", "0", "1e300", "18446744073709551615", "4294967296", "2147483648", "1e15", "NaN", "\"x\""];

    /// <summary>One mutation of the recording's lines: a number replaced by an extreme one, a year, a character, a line dropped or doubled.</summary>
    private static string Mutate(List<string> lines, Random rng)
    {
        var n = rng.Next(lines.Count);
        var line = lines[n];
        switch (rng.Next(6))
        {
            case 0:
            case 1:
                var digits = Enumerable.Range(0, line.Length).Where(i => char.IsDigit(line[i]) && (i == 0 || line[i - 1] == ':')).ToList();
                if (digits.Count == 0)
                {
                    goto default;
                }

                var start = digits[rng.Next(digits.Count)];
                var end = start;
                while (end < line.Length && (char.IsDigit(line[end]) || line[end] is '.' or 'e' or '-'))
                {
                    end++;
                }

                var value = Numbers[rng.Next(Numbers.Length)];
                lines[n] = line[..start] + value + line[end..];
                return $"line {n + 1}: a number replaced by {value}";
            case 2:
                var year = rng.Next(1, 10000).ToString("0000", CultureInfo.InvariantCulture);
                lines[n] = line.Replace("2026-", year + "-", StringComparison.Ordinal);
                return $"line {n + 1}: year {year}";
            case 3:
                var c = rng.Next(line.Length);
                var sb = new StringBuilder(line) { [c] = (char)rng.Next(0, 128) };
                lines[n] = sb.ToString();
                return $"line {n + 1}: character {c}";
            case 4:
                lines.Insert(n, line);
                return $"line {n + 1} doubled";
            default:
                lines.RemoveAt(n);
                return $"line {n + 1} dropped";
        }
    }
}

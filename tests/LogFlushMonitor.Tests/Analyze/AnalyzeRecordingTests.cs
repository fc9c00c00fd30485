using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Recording;
using LogFlushMonitor.Simulation;

namespace LogFlushMonitor.Tests.Analyze;

/// <summary>
/// <c>analyze</c> on an NDJSON recording (<c>simulate --out</c>): read as a recording, not called a corrupt .xel file,
/// with the figures of the events the simulator sent; a file is told apart by its first bytes, not by its name.
/// </summary>
public sealed class AnalyzeRecordingTests : IDisposable
{
    private static readonly DateTime Start = new(2026, 11, 22, 8, 0, 0, DateTimeKind.Utc);
    private readonly AnalyzeTestFiles _files = new();

    public void Dispose() => _files.Dispose();

    [Fact]
    public void A_recording_is_analysed_with_the_figures_of_the_events_it_recorded()
    {
        // The mixed scenario (three instances, eight databases, a WRITELOG spike) recorded to NDJSON, and the same
        // events counted as the simulator sent them.
        var path = _files.PathOf("mixed.ndjson");
        RecordingSink sent;
        using (var writer = new NdjsonSampleWriter(path))
        {
            sent = new RecordingSink(writer);
            SimulationScenarios.Create("mixed", new SimulationOptions { RateScale = 0.02, EventLossRate = 0.001 }).Run(Start, TimeSpan.FromMinutes(2), sent);
            writer.Flush();
        }

        var report = Analyze(path);

        Assert.Equal(AnalyzeOutcome.Analysed, report.Outcome);
        var file = Assert.Single(report.Files);
        Assert.Equal(FileStatus.Ok, file.Status);
        var expected = sent.FlushStarts.Select(f => (f.Instance, f.DatabaseId))
            .Concat(sent.FlushCompletes.Select(f => (f.Instance, f.DatabaseId)))
            .Concat(sent.Waits.Where(w => w.WaitType == AnalyzeSink.WriteLog).Select(w => (w.Instance, w.DatabaseId)))
            .Distinct()
            .Order()
            .ToList();
        Assert.True(expected.Count >= 8, $"the scenario sent events of {expected.Count} databases");
        Assert.Equal(expected, report.Databases.Select(d => (d.Instance, d.DatabaseId)).Order().ToList());
        foreach (var db in report.Databases)
        {
            var starts = sent.FlushStarts.Where(f => f.Instance == db.Instance && f.DatabaseId == db.DatabaseId).ToList();
            var completes = sent.FlushCompletes.Where(f => f.Instance == db.Instance && f.DatabaseId == db.DatabaseId).ToList();
            var waits = sent.Waits.Where(w => w.Instance == db.Instance && w.DatabaseId == db.DatabaseId && w.WaitType == AnalyzeSink.WriteLog).ToList();
            var name = $"{db.Instance}/{db.Database}";
            Assert.True(starts.Count == db.Flushes, $"{name}: {db.Flushes} flushes analysed, {starts.Count} sent");
            Assert.True(starts.Sum(f => (long)f.WriteSize) == db.Bytes, $"{name}: {db.Bytes} bytes analysed");
            Assert.Equal(completes.Count, db.FlushDuration?.Count ?? 0);
            Assert.Equal(waits.Count, db.WriteLog?.Count ?? 0);
            if (completes.Count > 0)
            {
                Assert.Equal(completes.Max(f => f.Duration!.Value.TotalMilliseconds), db.FlushDuration!.MaxMs, 3);
            }

            if (waits.Count > 0)
            {
                Assert.Equal(waits.Max(w => w.Duration.TotalMilliseconds), db.WriteLog!.MaxMs, 3);
                Assert.Equal(waits.Average(w => w.Duration.TotalMilliseconds), db.WriteLog.MeanMs, 3);
            }
        }

        Assert.Equal(sent.Of<RecordedLoss>().Sum(l => l.Count), report.TotalLost);
    }

    [Theory]
    [InlineData("text")]
    [InlineData("json")]
    public void A_recording_of_two_instances_names_the_instance_of_each_database(string format)
    {
        // Issue 30 item 6: two instances, each with a database "orders" of id 5; the report printed "Database orders
        // (id 5)" twice, with nothing to tell them apart, in text and JSON.
        var path = _files.PathOf("two.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            foreach (var (instance, flushes) in new[] { ("prod-1", 30), ("prod-2", 10) })
            {
                for (var i = 0; i < flushes; i++)
                {
                    writer.OnLogFlush(new LogFlushEvent(instance, 5, "orders", 512, (ulong)i, Start.AddMilliseconds(i)));
                }
            }

            writer.Flush();
        }

        var stdout = new StringWriter();
        var stderr = new StringWriter();
        var code = AnalyzeRunner.Run(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never, Format = format == "json" ? ReportFormat.Json : ReportFormat.Text }, ExitCodes.Of, stdout, stderr, CancellationToken.None);

        Assert.True(code == 0, stderr.ToString());
        if (format == "text")
        {
            Assert.Contains("Database orders (id 5) on instance prod-1", stdout.ToString(), StringComparison.Ordinal);
            Assert.Contains("Database orders (id 5) on instance prod-2", stdout.ToString(), StringComparison.Ordinal);
        }
        else
        {
            var databases = System.Text.Json.Nodes.JsonNode.Parse(stdout.ToString())!["databases"]!.AsArray();
            Assert.Equal([("prod-1", 30L), ("prod-2", 10L)], databases.Select(d => ((string)d!["instance"]!, (long)d["flushes"]!)).Order());
        }
    }

    [Fact]
    public void A_recording_of_one_instance_does_not_repeat_its_name_on_each_database()
    {
        var path = _files.PathOf("one.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            writer.OnLogFlush(new LogFlushEvent("prod-1", 5, "orders", 512, 1, Start));
            writer.Flush();
        }

        var stdout = new StringWriter();
        var code = AnalyzeRunner.Run(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never }, ExitCodes.Of, stdout, new StringWriter(), CancellationToken.None);

        Assert.Equal(0, code);
        Assert.Contains("Database orders (id 5)", stdout.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("on instance", stdout.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void Analyze_reads_a_recording_through_the_command_and_exits_zero()
    {
        var path = _files.PathOf("light.ndjson");
        using (var writer = new NdjsonSampleWriter(path))
        {
            SimulationScenarios.Create("mixed", new SimulationOptions { RateScale = 0.01 }).Run(Start, TimeSpan.FromSeconds(30), writer);
            writer.Flush();
        }

        var stdout = new StringWriter();
        var stderr = new StringWriter();
        var code = AnalyzeRunner.Run(new AnalyzeSettings { Inputs = [path], Progress = ProgressMode.Never }, ExitCodes.Of, stdout, stderr, CancellationToken.None);

        Assert.True(code == 0, stderr.ToString());
        Assert.DoesNotContain("error:", stderr.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("corrupt", stdout.ToString(), StringComparison.OrdinalIgnoreCase);
        Assert.Contains("flushes:", stdout.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_file_is_taken_for_a_recording_or_a_xel_file_by_its_first_bytes_not_its_name()
    {
        // A .xel file saved as .ndjson, and a recording saved as .xel: each read for what it holds.
        var xel = _files.Write("flushes.xel", w =>
        {
            for (var i = 0; i < 100; i++)
            {
                w.LogFlushStart(Start.AddMilliseconds(i), 7, "sales", 4096, (ulong)i + 1, (ulong)i + 1);
            }
        });
        var xelNamedNdjson = _files.PathOf("flushes-renamed.ndjson");
        File.Move(xel, xelNamedNdjson);

        var recordingNamedXel = _files.PathOf("recording.xel");
        using (var writer = new NdjsonSampleWriter(recordingNamedXel))
        {
            for (var i = 0; i < 50; i++)
            {
                writer.OnLogFlush(new LogFlushEvent("sql-a", 9, "orders", 512, (ulong)i + 1, Start.AddMilliseconds(i)));
            }

            writer.Flush();
        }

        var report = Analyze(xelNamedNdjson, recordingNamedXel);

        Assert.All(report.Files, f => Assert.True(f.Status == FileStatus.Ok, $"{f.Path}: {f.Status} {f.Error}"));
        Assert.Equal(100, report.Databases.Single(d => d.DatabaseId == 7).Flushes);
        var orders = report.Databases.Single(d => d.DatabaseId == 9);
        Assert.Equal(("sql-a", "orders", 50L), (orders.Instance, orders.Database, orders.Flushes));
    }

    private static AnalyzeReport Analyze(params string[] paths)
    {
        var settings = new AnalyzeSettings { Inputs = paths, Progress = ProgressMode.Never, Threads = 1 };
        Assert.True(AnalyzeRunner.TryExpand(settings.Inputs, TextWriter.Null, out var groups));
        return AnalyzeRunner.Analyze(settings, groups, TextWriter.Null, CancellationToken.None);
    }
}

using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Text;
using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// Runs <c>analyze</c>: expands the inputs, reads each input's .xel files on every core (<see cref="XelInput"/>: one
/// lean mapper and one <see cref="LogFlushTally"/> per thread, merged at the end, no lock per event) or on the calling
/// thread with <see cref="AnalyzeSettings.Threads"/> 1, and builds the report. The figures are the same either way.
/// Memory stays flat: the readers reuse their buffers and the tallies are fixed-size per database.
/// </summary>
internal static class AnalyzeRunner
{
    /// <summary>The instance name events from .xel files are counted under (a file does not say which server wrote it).</summary>
    public const string InstanceName = "analyze";

    /// <summary>
    /// Analyses, writes the report to <paramref name="stdout"/> and problems and progress to <paramref name="stderr"/>;
    /// returns the exit code <paramref name="exitCodeOf"/> gives the outcome (the JSON report states it too).
    /// </summary>
    public static int Run(AnalyzeSettings settings, Func<AnalyzeOutcome, int> exitCodeOf, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(exitCodeOf);
        if (!TryExpand(settings.Inputs, stderr, out var groups, out var skipped))
        {
            return exitCodeOf(AnalyzeOutcome.InvalidArguments);
        }

        var report = Analyze(settings, groups, stderr, cancellationToken, skipped: skipped);
        WriteProblems(report, stderr, "the other files were analysed");
        WritePairingNote(report, stderr);
        if (settings.Format == ReportFormat.Json)
        {
            JsonReportWriter.Write(report, exitCodeOf(report.Outcome), stdout);

            // The document says it too, but a person running a script should see why nothing was found.
            foreach (var f in report.HasRelevantEvents ? [] : report.Files.Where(f => f.Status == FileStatus.Ok))
            {
                stderr.WriteLine(PrintableText.Of(TextReportWriter.Census(f)));
            }
        }
        else
        {
            TextReportWriter.Write(report, stdout);
        }

        stdout.Flush();
        return exitCodeOf(report.Outcome);
    }

    /// <summary>
    /// Says once how flush latency was measured when some completes had no start (their duration field was used, and
    /// its unit matters): how many, in which unit and why.
    /// </summary>
    public static void WritePairingNote(AnalyzeReport report, TextWriter stderr)
    {
        if (report.FlushPairing is { Unpaired: > 0 } p)
        {
            stderr.WriteLine(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"note: flush latency is the time from each log_flush_start to its log_flush_complete ({p.Paired:N0} pairs); {p.Unpaired:N0} completes had no start and were measured by their duration field: {p.UnitReason}."));
        }
    }

    /// <summary>
    /// One stderr line per skipped entry and per file that is not ok (damage, malformed events, errors), ending with
    /// <paramref name="others"/> when there were other files (one file alone has no others to speak of).
    /// </summary>
    public static void WriteProblems(AnalyzeReport report, TextWriter stderr, string others)
    {
        var ci = System.Globalization.CultureInfo.InvariantCulture;
        others = report.Files.Count > 1 ? ", " + others : "";
        foreach (var s in report.Skipped)
        {
            stderr.WriteLine(PrintableText.Of($"warning: {s.Reason}."));
        }

        foreach (var f in report.Files.Where(f => f.Status != FileStatus.Ok))
        {
            if (f.Status == FileStatus.Damaged)
            {
                stderr.WriteLine(PrintableText.Of(string.Create(ci, $"error: {f.Path}: damaged: {TextReportWriter.DamageSummary(f)}; the {f.Events:N0} events around it were counted{others}.")));
                continue;
            }

            stderr.WriteLine(PrintableText.Of(string.Create(ci,
                $"error: {f.Path}: {f.Error} (byte offset {(f.ErrorOffset is { } o ? o.ToString(ci) : "unknown")}); {f.Events:N0} events before it were counted{others}.")));
        }
    }

    /// <summary>
    /// Reads the expanded file groups (one group per input; a group's files share event_sequence numbering); with
    /// <paramref name="series"/>, also counts flushes and WRITELOG waits per time bucket (the HTML report).
    /// </summary>
    public static AnalyzeReport Analyze(
        AnalyzeSettings settings,
        IReadOnlyList<IReadOnlyList<string>> groups,
        TextWriter? stderr,
        CancellationToken cancellationToken,
        TimeSeriesRecorder? series = null,
        IReadOnlyList<XelSkippedEntry>? skipped = null)
    {
        var time = settings.Time;
        var started = time.GetTimestamp();
        var sizes = groups.SelectMany(g => g).Distinct(StringComparer.Ordinal).ToDictionary(p => p, SizeOf, StringComparer.Ordinal);
        var total = sizes.Values.Sum();
        var show = settings.Progress switch
        {
            ProgressMode.Always => true,
            ProgressMode.Never => false,
            _ => total > AnalyzeSettings.ProgressThresholdBytes || settings.StdErrIsTerminal,
        };
        var progress = new ProgressReporter(show ? stderr : null, total, time, settings.ProgressLabel);

        var tally = new LogFlushTally();
        tally.Instance(InstanceName); // first, however many threads read: ties in the database order stay put
        var sink = new AnalyzeSink(tally, series) { Window = settings.Window };
        var views = new SignalViews(settings.Window, settings.OnSignal);
        var threads = Math.Max(1, settings.Threads);
        var mappers = Enumerable.Range(0, threads)
            .Select(i => threads == 1 ? new XelTallyMapper(tally, series) { Window = settings.Window } : new XelTallyMapper(new LogFlushTally(), series is null ? null : new TimeSeriesRecorder()) { Window = settings.Window })
            .ToArray();
        var files = new List<FileReport>();
        var read = new HashSet<string>(StringComparer.Ordinal);
        long ordinal = 0;
        foreach (var group in groups)
        {
            // The same file named twice (a folder and a glob) is read once, or it would count twice.
            var fresh = group.Where(p => read.Add(Path.GetFullPath(p))).ToList();
            var ndjson = fresh.Where(p => NdjsonInput.IsNdjson(p)).ToHashSet(StringComparer.Ordinal);
            var xel = fresh.Where(p => !ndjson.Contains(p)).ToList();

            // Files of one input are one session's rollover set: its numbering continues across them.
            var xelReports = xel.Count == 0 ? [] : XelInput.Read(xel, ordinal, mappers, progress, cancellationToken);
            ordinal += xel.Count;
            var next = 0;
            foreach (var path in fresh)
            {
                files.Add(ndjson.Contains(path)
                    ? NdjsonInput.Read(path, sizes[path], sink, views, progress, cancellationToken)
                    : xelReports[next++] with { Bytes = sizes[path] });
            }
        }

        progress.Complete();
        if (threads > 1)
        {
            foreach (var m in mappers)
            {
                tally.AddFrom(m.Tally);
                if (series is not null && m.Series is { } s)
                {
                    series.AddFrom(s);
                }
            }
        }

        var pairing = FlushPairing.Finish(mappers, tally);
        var databases = tally.Instances.SelectMany(i => i.Databases).Select(d => Describe(d, pairing, views)).OfType<DatabaseReport>()
            .OrderByDescending(d => d.Flushes).ThenBy(d => d.Database, StringComparer.Ordinal).ToList();
        var outcome = files.Any(f => f.Status != FileStatus.Ok) ? AnalyzeOutcome.CorruptInput
            : files.Any(f => f.HasRelevantEvents) ? AnalyzeOutcome.Analysed
            : AnalyzeOutcome.NoRelevantEvents;
        return new AnalyzeReport(files, databases, outcome, time.GetElapsedTime(started)) { Skipped = skipped ?? [], FlushPairing = pairing, Signals = views.Tables() };
    }

    /// <summary>Expands every input; false (with messages on <paramref name="stderr"/>) when any names nothing.</summary>
    public static bool TryExpand(IReadOnlyList<string> inputs, TextWriter stderr, out IReadOnlyList<IReadOnlyList<string>> groups) =>
        TryExpand(inputs, stderr, out groups, out _);

    /// <summary>
    /// Expands every input; false (with messages on <paramref name="stderr"/>) when any names nothing.
    /// <paramref name="skipped"/> lists what folders and globs matched that is not a regular file (not read: a named
    /// pipe would block the run).
    /// </summary>
    public static bool TryExpand(IReadOnlyList<string> inputs, TextWriter stderr, out IReadOnlyList<IReadOnlyList<string>> groups, out IReadOnlyList<XelSkippedEntry> skipped)
    {
        var list = new List<IReadOnlyList<string>>();
        var left = new List<XelSkippedEntry>();
        var ok = true;
        foreach (var input in inputs)
        {
            string? problem = null;
            try
            {
                var set = string.IsNullOrWhiteSpace(input) ? new XelFileSet([], []) : XelFiles.Find(input);
                list.Add(set.Files);
                if (set.Files.Count == 0 && set.Skipped is [{ } only] && only.Path == input)
                {
                    problem = only.Reason.Replace(": skipped", "", StringComparison.Ordinal) + " (opening it could block)";
                }
                else if (set.Files.Count == 0)
                {
                    left.AddRange(set.Skipped);
                    var others = set.Skipped.Count > 0 ? $" ({string.Join("; ", set.Skipped.Select(s => s.Reason))})" : "";
                    problem = (Directory.Exists(input) ? "the folder holds no .xel file" : "no file matches this pattern") + others;
                }
                else
                {
                    left.AddRange(set.Skipped);
                }
            }
            catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
            {
                problem = "no such file, folder or pattern";
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
            {
                problem = e.Message;
            }

            if (problem is not null)
            {
                stderr.WriteLine(PrintableText.Of($"error: input '{input}': {problem}.") + " Give .xel files, folders holding them, or a glob such as /path/session*.xel.");
                ok = false;
            }
        }

        groups = list;
        skipped = left;
        return ok;
    }

    private static long SizeOf(string path)
    {
        try
        {
            return new FileInfo(path).Length;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return 0;
        }
    }

    /// <summary>The upper bound of the 512-byte slot that holds the flush of rank ceil(q·n): exact to the slot; null without flushes.</summary>
    internal static long? WriteSizeQuantile(WriteSizeDistribution sizes, double q)
    {
        if (sizes.Count == 0)
        {
            return null;
        }

        var rank = Math.Max(1, (long)Math.Ceiling(q * sizes.Count));
        long seen = 0;
        for (var slot = 0; slot < WriteSizeDistribution.SlotCount; slot++)
        {
            seen += sizes[slot];
            if (seen >= rank)
            {
                return slot == WriteSizeDistribution.SlotCount - 1 ? WriteSizeDistribution.MaxBlockBytes + 1 : WriteSizeDistribution.UpperBoundOf(slot);
            }
        }

        return WriteSizeDistribution.MaxBlockBytes + 1;
    }

    private static DatabaseReport? Describe(DatabaseTally db, FlushPairingSummary pairing, SignalViews views)
    {
        var n = db.Sizes.Count;
        var d = db.FlushDurations;
        var w = db.WriteLog;
        if (n == 0 && d.Count == 0 && w.Count == 0)
        {
            return null;
        }

        var name = db.Name ?? MetricAttributes.UnnamedDatabase(db.DatabaseId);
        var writelog = w.Count > 0 ? new WaitSnapshot(AnalyzeSink.WriteLog, w.Count, w.MeanSeconds, w.Quantile(0.95), w.MaxSeconds) : null;
        var snapshot = new DatabaseSnapshot
        {
            Instance = db.Instance.Name,
            DatabaseId = db.DatabaseId,
            Database = name,
            WriteSizes = db.Sizes,
            FlushDurations = d,
            Waits = writelog is null ? [] : [writelog],
            FirstEventUtc = db.FirstTicks == long.MaxValue ? null : new DateTime(db.FirstTicks, DateTimeKind.Utc),
            LastEventUtc = db.LastTicks == long.MinValue ? null : new DateTime(db.LastTicks, DateTimeKind.Utc),
            BusiestWriteLogWindow = db.WriteLogWindows.Busiest(db.FirstTicks, db.LastTicks),
            CommitBudget = Budget(db),

            // A recording of Azure holds the tier (the log_rate rows): the storage is judged against its published latency.
            LogRate = views.GovernanceOf(db.Instance.Name, name),

            // A recording's log space as of its last poll: a log about to fill is the first advice, as in the service.
            LogSpace = views.LogSpace(db.Instance.Name, name),
        };
        if (db.Instance.Name == InstanceName && pairing.OutstandingAtEnd.TryGetValue(db.DatabaseId, out var inFlight))
        {
            // Flushes still in flight when the file ended, aged against its last event: a stall names itself first.
            snapshot = snapshot with
            {
                OutstandingFlushes = inFlight.Count,
                OldestOutstandingFlushSeconds = Math.Max(0, pairing.EndTicks - inFlight.OldestStartTicks) / (double)TimeSpan.TicksPerSecond,
            };
        }

        return new DatabaseReport
        {
            Instance = snapshot.Instance,
            Database = name,
            DatabaseId = db.DatabaseId,
            Flushes = n,
            Bytes = db.Sizes.TotalBytes,
            Buckets = WriteSizeBuckets.Compute(db.Sizes),
            SingleSectorShare = n > 0 ? (double)db.Sizes.CountAtMost(512) / n : 0,
            WriteSizeP50 = WriteSizeQuantile(db.Sizes, 0.5),
            WriteSizeP99 = WriteSizeQuantile(db.Sizes, 0.99),
            FullBlockShare = n > 0 ? (double)db.Sizes[WriteSizeDistribution.SlotOf(WriteSizeDistribution.MaxBlockBytes)] / n : 0,
            FlushDuration = d.Count > 0
                ? new DurationStats(d.Count, d.MeanSeconds * 1000, d.Quantile(0.5) * 1000, d.Quantile(0.95) * 1000, d.Quantile(0.99) * 1000, d.MaxSeconds * 1000)
                : null,
            WriteLog = writelog is { } x
                ? new DurationStats(x.Count, x.MeanSeconds * 1000, null, x.P95Seconds * 1000, null, x.MaxSeconds * 1000)
                : null,
            WriteLogBusiestWindow = snapshot.BusiestWriteLogWindow,
            WriteLogByApplication = db.Applications.Top(),
            WriteLogWaitsWithApplication = db.Applications.WaitsWithApplication,
            WriteLogByStatement = [.. db.Statements.Top().Select(s => s with { Text = views.StatementTexts?.TextOf(snapshot.Instance, name, s.Name) })],
            WriteLogWaitsWithStatement = db.Statements.WaitsWith,
            FirstEventUtc = snapshot.FirstEventUtc,
            LastEventUtc = snapshot.LastEventUtc,
            CommitBudget = snapshot.CommitBudget,
            Storage = CommitAdvice.Storage(snapshot),
            Advice = Advisor.Advise(snapshot),
        };
    }

    /// <summary>
    /// The commit budget from the wait events: the local flush is WRITELOG (the events hold no I/O-governance queue, which
    /// comes from the log file's stats), the other parts their waits by database; per commit over the WRITELOG waits
    /// (each is a commit that waited for its flush). Null when no commit-budget wait was read.
    /// </summary>
    private static CommitBudgetSnapshot? Budget(DatabaseTally db)
    {
        var parts = new List<CommitBudgetPart>();
        if (db.WriteLog.Count > 0)
        {
            parts.Add(new(CommitPart.LocalFlush, db.WriteLog.SumSeconds, CommitPartSource.Events));
        }

        for (var i = 0; i < db.CommitPartTicks.Length; i++)
        {
            if (db.CommitPartTicks[i] > 0)
            {
                parts.Add(new((CommitPart)i, db.CommitPartTicks[i] / (double)TimeSpan.TicksPerSecond, CommitPartSource.Events));
            }
        }

        if (parts.Count == 0)
        {
            return null;
        }

        var window = db.FirstTicks < db.LastTicks ? (db.LastTicks - db.FirstTicks) / (double)TimeSpan.TicksPerSecond : 0;
        return new([.. parts.OrderByDescending(p => p.Seconds)], window, db.WriteLog.Count > 0 ? db.WriteLog.Count : null, []);
    }
}

using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>
/// Issue 19 item 2, wired: the aggregation compares its events with the server's own figures at every poll, exports
/// the ratio per quantity, reports a lasting disagreement once (and its end), and corrects a wait duration unit that is
/// a clean 1,000 off. Before the wiring nothing compared anything: no ratio, no report, a wrong unit stayed wrong.
/// </summary>
public class AgreementWiringTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    /// <summary>
    /// Polls <paramref name="polls"/> times, 15 s apart. Between polls: <paramref name="events"/> log_flush_start events
    /// of 4,096 bytes and WRITELOG waits of <paramref name="waitEventMs"/> in all (as the events say); the server counts
    /// 100 flushes, 409,600 bytes and 2,000 ms of WRITELOG and Log Flush Wait Time per poll.
    /// </summary>
    private static void Run(LogFlushAggregator a, int polls, int events, double waitEventMs, long lost = 0, int startPoll = 0)
    {
        for (var p = startPoll; p < startPoll + polls; p++)
        {
            var t = T0.AddSeconds(15 * p);
            for (var i = 0; i < events; i++)
            {
                a.OnLogFlush(new LogFlushEvent("sql1", 5, "sales", 4096, (ulong)i, t));
            }

            if (waitEventMs > 0)
            {
                a.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(waitEventMs / 10), 5, "sales", t));
                for (var i = 1; i < 10; i++)
                {
                    a.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(waitEventMs / 10), 5, "sales", t));
                }
            }

            if (lost > 0)
            {
                a.OnSourceLoss("sql1", LossKind.ServerDropped, lost);
            }

            long n = p + 1;
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", DatabasesCounters.LogFlushes, "sales", 100 * n, PerfCounterType.BulkCount)));
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", DatabasesCounters.LogBytesFlushed, "sales", 409_600 * n, PerfCounterType.BulkCount)));
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", DatabasesCounters.LogFlushWaitTime, "sales", 2_000 * n, PerfCounterType.BulkCount)));
            // _Total counts internal databases too: never compared.
            a.OnBatch(SignalRegistry.Counters.Row("sql1", t, new CounterRow("Databases", DatabasesCounters.LogFlushes, "_Total", 900 * n, PerfCounterType.BulkCount)));
            a.OnBatch(SignalRegistry.Counters.End("sql1", t));
            a.OnBatch(SignalRegistry.WaitStats.Row("sql1", t, new WaitStatsRow("WRITELOG", 50 * n, 2_000 * n, 100, 0)));
            a.OnBatch(SignalRegistry.WaitStats.End("sql1", t));
        }
    }

    private static double Ratio(LogFlushAggregator a, string quantity) =>
        Assert.Single(a.ReadDouble("sqlserver.monitor.agreement"), m => m.Tags.ToArray().Any(kv => kv.Key == "quantity" && (string?)kv.Value == quantity)).Value;

    [Fact]
    public void Events_that_match_the_counters_agree_and_report_nothing()
    {
        var reports = new List<AgreementReport>();
        var a = new LogFlushAggregator(agreement: reports.Add);
        Run(a, 20, events: 100, waitEventMs: 2_000);

        Assert.Equal(1.0, Ratio(a, "flushes"), 3);
        Assert.Equal(1.0, Ratio(a, "flushed_bytes"), 3);
        Assert.Equal(1.0, Ratio(a, "writelog_time"), 3);
        Assert.Equal(1.0, Ratio(a, "flush_wait_time"), 3);
        Assert.Empty(reports);
    }

    [Fact]
    public void Half_the_flushes_missing_is_reported_once_after_three_windows_and_its_end_once()
    {
        var reports = new List<AgreementReport>();
        var a = new LogFlushAggregator(agreement: reports.Add);
        Run(a, 20, events: 50, waitEventMs: 2_000);

        Assert.Equal(0.5, Ratio(a, "flushes"), 3);
        var flushes = Assert.Single(reports, r => r.Quantity == AgreementQuantity.Flushes);
        Assert.Equal(AgreementVerdict.Disagrees, flushes.Verdict);
        Assert.Equal((200.0, 400.0), (flushes.Events, flushes.Server));
        Assert.Contains("events missing", flushes.LikelyCause, StringComparison.Ordinal);
        Assert.Contains(reports, r => r.Quantity == AgreementQuantity.FlushedBytes);

        reports.Clear();
        Run(a, 8, events: 100, waitEventMs: 2_000, startPoll: 20);
        Assert.Contains(reports, r => r is { Quantity: AgreementQuantity.Flushes, Verdict: null });
    }

    [Fact]
    public void Events_lost_and_counted_explain_a_shortfall()
    {
        var reports = new List<AgreementReport>();
        var a = new LogFlushAggregator(agreement: reports.Add);
        Run(a, 20, events: 50, waitEventMs: 2_000, lost: 50);

        Assert.Equal(0.5, Ratio(a, "flushes"), 3); // the ratio says what arrived; the verdict knows why
        Assert.DoesNotContain(reports, r => r.Quantity is AgreementQuantity.Flushes or AgreementQuantity.FlushedBytes);
    }

    [Fact]
    public void Wait_durations_a_clean_thousand_times_too_large_are_corrected_once_and_then_agree()
    {
        var reports = new List<AgreementReport>();
        var a = new LogFlushAggregator(agreement: reports.Add);
        // The events say 2,000 s of WRITELOG per poll where the server counted 2,000 ms: a microsecond field read as milliseconds.
        Run(a, 16, events: 100, waitEventMs: 2_000_000); // a baseline poll, then three windows of four

        var corrected = Assert.Single(reports, r => r.Correction is not null);
        Assert.Equal(AgreementVerdict.ThousandTimesMore, corrected.Verdict);
        Assert.Contains("0.001", corrected.Correction, StringComparison.Ordinal);

        reports.Clear();
        Run(a, 12, events: 100, waitEventMs: 2_000_000, startPoll: 16);
        Assert.Equal(1.0, Ratio(a, "writelog_time"), 3);
        Assert.Equal(1.0, Ratio(a, "flush_wait_time"), 3);
        Assert.Empty(reports);
    }

    [Fact]
    public void An_instance_without_events_compares_nothing()
    {
        var reports = new List<AgreementReport>();
        var a = new LogFlushAggregator(agreement: reports.Add);
        Run(a, 20, events: 0, waitEventMs: 0);

        Assert.Empty(a.ReadDouble("sqlserver.monitor.agreement"));
        Assert.Empty(reports);
    }
}

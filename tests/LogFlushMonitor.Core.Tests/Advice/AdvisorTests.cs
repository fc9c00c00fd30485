using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Tests.Advice;

public class AdvisorTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);

    private static DatabaseSnapshot Db(int count, uint size, TimeSpan span, Action<LogFlushAggregator>? more = null)
    {
        var agg = new LogFlushAggregator();
        for (var i = 0; i < count; i++)
        {
            agg.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", size, (ulong)i, T0 + (span * i / Math.Max(1, count - 1))));
        }

        more?.Invoke(agg);
        return agg.Snapshot().Single(d => d.Database == "shop");
    }

    [Fact]
    public void Busy_single_sector_flushes_get_the_batching_advice_with_their_share()
    {
        var advice = Advisor.Advise(Db(5000, 512, TimeSpan.FromSeconds(1)));
        var item = Assert.Single(advice);
        Assert.Equal("single-sector-flushes", item.Code);
        Assert.Equal(AdviceLevel.Warning, item.Level);
        Assert.StartsWith("100 % of flushes are 512 B", item.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void A_trickle_of_small_commits_is_not_worth_advice()
    {
        Assert.Empty(Advisor.Advise(Db(200, 512, TimeSpan.FromSeconds(20)))); // 10 flushes/s
    }

    [Fact]
    public void Too_few_flushes_say_nothing()
    {
        Assert.Empty(Advisor.Advise(Db(Advisor.MinFlushes - 1, 512, TimeSpan.FromSeconds(1))));
    }

    [Fact]
    public void Full_log_blocks_are_reported_as_information()
    {
        var item = Assert.Single(Advisor.Advise(Db(300, 61440, TimeSpan.FromSeconds(2))));
        Assert.Equal(("full-block-flushes", AdviceLevel.Info), (item.Code, item.Level));
    }

    [Fact]
    public void Slow_writelog_and_slow_log_writes_are_warnings_with_their_figures()
    {
        var db = Db(300, 61440, TimeSpan.FromSeconds(2), agg =>
        {
            for (var i = 0; i < 50; i++)
            {
                agg.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(20), 5, "shop", T0));
            }

            agg.OnBatch(SignalRegistry.FileStats.Row("sql1", T0, new FileStatsRow(5, "shop", 2, 100, 0, 100)));
            agg.OnBatch(SignalRegistry.FileStats.Row("sql1", T0.AddSeconds(15), new FileStatsRow(5, "shop", 2, 200, 0, 2100)));
        });

        var advice = Advisor.Advise(db);
        var codes = advice.ToDictionary(a => a.Code);
        Assert.Equal(["slow-log-writes", "slow-writelog", "full-block-flushes"], advice.Select(a => a.Code));
        Assert.Contains("commits wait 20 ms each", codes["slow-writelog"].Text, StringComparison.Ordinal);
        Assert.Contains("20 ms on average", codes["slow-log-writes"].Text, StringComparison.Ordinal);
    }

    private static void LogFlushWaitCounters(LogFlushAggregator agg, DateTime at, long waits, long waitMs)
    {
        agg.OnBatch(SignalRegistry.Counters.Row("sql1", at, new CounterRow("Databases", "Log Flush Waits/sec", "shop", waits, PerfCounterType.BulkCount)));
        agg.OnBatch(SignalRegistry.Counters.Row("sql1", at, new CounterRow("Databases", "Log Flush Wait Time", "shop", waitMs, PerfCounterType.BulkCount)));
    }

    [Fact]
    public void A_slow_log_device_comes_before_the_batching_advice_for_row_at_a_time_commits()
    {
        // As the periodic summary saw it: 512 B flushes by the thousand and log writes at 31 ms over the last poll.
        var db = Db(5000, 512, TimeSpan.FromSeconds(1), agg =>
        {
            agg.OnBatch(SignalRegistry.FileStats.Row("sql1", T0, new FileStatsRow(5, "shop", 2, 100, 0, 100)));
            agg.OnBatch(SignalRegistry.FileStats.Row("sql1", T0.AddSeconds(5), new FileStatsRow(5, "shop", 2, 200, 0, 3200)));
        });

        var codes = Advisor.Advise(db).Select(a => a.Code).ToList();
        Assert.Equal(["slow-log-writes", "single-sector-flushes"], codes);
        Assert.Contains("31 ms on average", Advisor.Advise(db)[0].Text, StringComparison.Ordinal);
    }

    [Fact]
    public void High_writelog_pressure_from_the_counters_names_the_log_device_first()
    {
        // Over the last 5 s poll: 300 commits waited 9 s in total (30 ms each, 1.8 s waiting per second).
        var db = Db(5000, 512, TimeSpan.FromSeconds(1), agg =>
        {
            LogFlushWaitCounters(agg, T0, 1_000, 500);
            LogFlushWaitCounters(agg, T0.AddSeconds(5), 1_300, 9_500);
        });

        var advice = Advisor.Advise(db);
        Assert.Equal(["slow-writelog", "single-sector-flushes"], advice.Select(a => a.Code));
        Assert.StartsWith("commits wait 30 ms each for the log (1.8 s waiting per second, last poll)", advice[0].Text, StringComparison.Ordinal);
    }

    [Fact]
    public void High_pressure_of_fast_commits_is_not_a_slow_device()
    {
        // Two sessions in a tight loop: always waiting (1.6 s/s) but 0.16 ms each: row-at-a-time, the device is fine.
        var db = Db(5000, 512, TimeSpan.FromSeconds(1), agg =>
        {
            LogFlushWaitCounters(agg, T0, 0, 0);
            LogFlushWaitCounters(agg, T0.AddSeconds(5), 50_000, 8_000);
        });

        Assert.Equal(["single-sector-flushes"], Advisor.Advise(db).Select(a => a.Code));
    }

    [Fact]
    public void A_few_slow_commits_are_too_little_pressure_to_blame_the_device()
    {
        // 30 ms each, but only 2 commits a second: 0.06 s/s, under the alert's own floor.
        var db = Db(300, 61440, TimeSpan.FromSeconds(2), agg =>
        {
            LogFlushWaitCounters(agg, T0, 0, 0);
            LogFlushWaitCounters(agg, T0.AddSeconds(5), 10, 300);
        });

        Assert.DoesNotContain(Advisor.Advise(db), a => a.Code == "slow-writelog");
    }

    [Fact]
    public void Without_counters_the_wait_events_over_their_span_give_the_pressure()
    {
        // A file: 100 commits of 25 ms over 2 s of events: 1.25 s waiting per second.
        var db = Db(300, 512, TimeSpan.FromSeconds(2), agg =>
        {
            for (var i = 0; i < 100; i++)
            {
                agg.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(25), 5, "shop", T0));
            }
        });

        var first = Advisor.Advise(db)[0];
        Assert.Equal("slow-writelog", first.Code);
        Assert.StartsWith("commits wait 25 ms each for the log (1.25 s waiting per second, over 2 s of events)", first.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void A_tail_of_slow_waits_speaks_through_the_p95_when_the_average_is_fast()
    {
        // 185 commits of 0.2 ms and 15 of 50 ms over 2 s: 3.9 ms on average, but more than one commit in twenty waits 50 ms.
        var db = Db(300, 61440, TimeSpan.FromSeconds(2), agg =>
        {
            for (var i = 0; i < 200; i++)
            {
                agg.OnWait(new WaitEvent("sql1", "WRITELOG", TimeSpan.FromMilliseconds(i < 185 ? 0.2 : 50), 5, "shop", T0));
            }
        });

        var first = Advisor.Advise(db)[0];
        Assert.Equal("slow-writelog", first.Code);
        Assert.StartsWith("WRITELOG p95 is", first.Text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(200, 0.040, true)] // 40 ms each, 0.8 s waiting per second: a spike
    [InlineData(200, 0.009, false)] // 0.18 s/s but 9 ms each: under the 10-15 ms line
    [InlineData(20, 0.040, false)] // 40 ms each but 0.08 s/s: too few commits to name the device
    [InlineData(19, 0.400, false)] // fewer than MinWaits waits
    public void The_busiest_window_is_judged_with_the_whole_spans_thresholds(long waits, double eachSeconds, bool spike)
    {
        var start = new DateTime(2026, 11, 22, 8, 10, 20, DateTimeKind.Utc);
        var db = Db(200, 4096, TimeSpan.FromMinutes(20)) with
        {
            BusiestWriteLogWindow = new WriteLogWindow(start, TimeSpan.FromSeconds(10), waits, waits * eachSeconds),
        };

        var item = Advisor.Advise(db).SingleOrDefault(a => a.Code == "writelog-spike");

        Assert.Equal(spike, item is not null);
        if (item is not null)
        {
            Assert.Equal(AdviceLevel.Warning, item.Level);
            Assert.StartsWith("in the 10 s from 2026-11-22 08:10:20 UTC commits waited 40 ms each for the log (0.8 s waiting per second)", item.Text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_span_already_judged_slow_gets_no_second_spike_line()
    {
        var db = Db(200, 4096, TimeSpan.FromMinutes(1)) with
        {
            Waits = [new WaitSnapshot("WRITELOG", 1200, 0.040, 0.050, 0.060)],
            BusiestWriteLogWindow = new WriteLogWindow(T0, TimeSpan.FromSeconds(10), 200, 8),
        };

        var codes = Advisor.Advise(db).Select(a => a.Code).ToList();

        Assert.Contains("slow-writelog", codes);
        Assert.DoesNotContain("writelog-spike", codes);
    }

    [Theory]
    [InlineData(8, 40.4, null, null, "8 flushes outstanding for 40 s")]
    [InlineData(null, null, 8, 40.0, "8 sessions waiting on WRITELOG for up to 40 s")]
    [InlineData(8, 40.4, 8, 39.6, "8 flushes outstanding for 40 s; 8 sessions waiting on WRITELOG for up to 40 s")]
    [InlineData(1, 15.0, 1, 15.0, "1 flush outstanding for 15 s; 1 session waiting on WRITELOG for up to 15 s")]
    public void A_stall_is_named_alone_first_and_no_batching_advice_is_given_while_it_lasts(int? outstanding, double? age, int? sessions, double? longest, string expected)
    {
        // Single-sector flushes at a high rate: without the stall, the batching advice would be given.
        var db = Db(5000, 512, TimeSpan.FromSeconds(1)) with
        {
            OutstandingFlushes = outstanding,
            OldestOutstandingFlushSeconds = age,
            WriteLogWaitingSessions = sessions,
            WriteLogLongestWaitSeconds = longest,
            LogWriteLatencySeconds = 0.5,
        };

        var advice = Advisor.Advise(db);

        var item = Assert.Single(advice);
        Assert.Equal(("log-stall", AdviceLevel.Warning), (item.Code, item.Level));
        Assert.Equal(expected + ": the log device is not completing writes; check the storage path (a failover, throttling, a full write cache) before anything else", item.Text);
        Assert.Equal(expected, Advisor.Stall(db));
    }

    [Fact]
    public void In_flight_figures_under_the_stall_line_are_no_stall()
    {
        // 14 s: a slow device, maybe, but SQL Server itself calls I/O stuck only after 15 s (error 833).
        var db = Db(5000, 512, TimeSpan.FromSeconds(1)) with
        {
            OutstandingFlushes = 3,
            OldestOutstandingFlushSeconds = 14.9,
            WriteLogWaitingSessions = 20,
            WriteLogLongestWaitSeconds = 0.002,
        };

        Assert.Null(Advisor.Stall(db));
        Assert.Equal("single-sector-flushes", Advisor.Advise(db)[0].Code);
        Assert.Null(Advisor.Stall(db with { OutstandingFlushes = 0, OldestOutstandingFlushSeconds = 0, WriteLogWaitingSessions = 0, WriteLogLongestWaitSeconds = 0 }));
    }

    [Fact]
    public void One_old_outstanding_flush_with_nobody_waiting_is_no_stall_as_in_the_alert()
    {
        // A quiet database whose one complete event was lost: nothing else completes to retire the start, so it ages,
        // but no session waits on it. The alert does not page on it; the summary must not cry stall either.
        var db = Db(20, 512, TimeSpan.FromSeconds(60)) with
        {
            OutstandingFlushes = 1,
            OldestOutstandingFlushSeconds = 600,
            WriteLogWaitingSessions = 0,
            WriteLogLongestWaitSeconds = 0,
        };

        Assert.Null(Advisor.Stall(db));
        Assert.DoesNotContain(Advisor.Advise(db), a => a.Code == "log-stall");
        Assert.Equal("2 flushes outstanding for 600 s", Advisor.Stall(db with { OutstandingFlushes = 2 }));
        Assert.Equal("1 flush outstanding for 600 s", Advisor.Stall(db with { WriteLogWaitingSessions = 1, WriteLogLongestWaitSeconds = 3 }));
    }
}

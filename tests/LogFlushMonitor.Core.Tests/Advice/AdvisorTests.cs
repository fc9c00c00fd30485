using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;

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

            agg.OnFileStats(new FileStatsSample("sql1", T0, 5, "shop", 2, 100, 0, 100));
            agg.OnFileStats(new FileStatsSample("sql1", T0.AddSeconds(15), 5, "shop", 2, 200, 0, 2100));
        });

        var codes = Advisor.Advise(db).ToDictionary(a => a.Code);
        Assert.Contains("WRITELOG p95 is 20", codes["slow-writelog"].Text, StringComparison.Ordinal);
        Assert.Contains("20 ms on average", codes["slow-log-writes"].Text, StringComparison.Ordinal);
    }
}

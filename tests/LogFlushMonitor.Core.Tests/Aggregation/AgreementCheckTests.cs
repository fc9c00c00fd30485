using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Core.Tests.Aggregation;

public class AgreementCheckTests
{
    /// <summary>Feeds <paramref name="polls"/> polls of the same increases and returns the verdicts of the windows that closed.</summary>
    private static List<AgreementVerdict> Feed(AgreementCheck check, int polls, double events, double server, double lost = 0)
    {
        var verdicts = new List<AgreementVerdict>();
        for (var i = 0; i < polls; i++)
        {
            if (check.Observe(events, server, lost) is { } v)
            {
                verdicts.Add(v);
            }
        }

        return verdicts;
    }

    [Fact]
    public void Events_matching_the_counter_agree_and_report_nothing()
    {
        var check = new AgreementCheck(AgreementQuantity.Flushes);

        var verdicts = Feed(check, 12, events: 990, server: 1000);

        Assert.Equal([AgreementVerdict.Agrees, AgreementVerdict.Agrees, AgreementVerdict.Agrees], verdicts);
        Assert.Equal(0.99, check.Ratio!.Value, 3);
        Assert.Null(check.Reported);
    }

    [Fact]
    public void A_window_needs_several_polls_so_dispatch_latency_does_not_count_as_disagreement()
    {
        var check = new AgreementCheck(AgreementQuantity.Flushes);

        // Events trail the counter by 3 s of a 15 s poll: alone, the first poll would compare 800 with 1,000.
        Assert.Null(check.Observe(800, 1000));
        Assert.Null(check.Observe(1000, 1000));
        Assert.Null(check.Observe(1000, 1000));
        Assert.Equal(AgreementVerdict.Agrees, check.Observe(1000, 1000));
        Assert.Equal(0.95, check.Ratio!.Value, 3);
    }

    [Fact]
    public void A_shortfall_lasting_three_windows_is_reported_and_one_good_window_ends_it()
    {
        var check = new AgreementCheck(AgreementQuantity.Flushes);

        Feed(check, 8, events: 500, server: 1000);
        Assert.Null(check.Reported); // two windows: not yet
        Feed(check, 4, events: 500, server: 1000);
        Assert.Equal(AgreementVerdict.Disagrees, check.Reported);
        Assert.Equal((2000.0, 4000.0), check.LastWindow);

        Feed(check, 4, events: 1000, server: 1000);
        Assert.Null(check.Reported);
    }

    [Fact]
    public void Counted_losses_explain_a_shortfall_but_never_a_surplus()
    {
        var shortfall = new AgreementCheck(AgreementQuantity.Flushes);
        Assert.Equal([AgreementVerdict.Agrees], Feed(shortfall, 4, events: 600, server: 1000, lost: 400));

        var surplus = new AgreementCheck(AgreementQuantity.Flushes);
        Assert.Equal([AgreementVerdict.Disagrees], Feed(surplus, 4, events: 1500, server: 1000, lost: 400));
    }

    [Fact]
    public void Too_little_traffic_says_nothing_and_closes_after_the_longest_window()
    {
        var check = new AgreementCheck(AgreementQuantity.Flushes);

        var verdicts = Feed(check, 20, events: 0, server: 5);

        Assert.Equal([AgreementVerdict.TooLittle], verdicts);
        Assert.Null(check.Ratio);
        Assert.Null(check.Reported);
    }

    [Theory]
    [InlineData(1000.0, AgreementVerdict.ThousandTimesMore)]
    [InlineData(0.001, AgreementVerdict.ThousandTimesLess)]
    public void A_clean_factor_of_a_thousand_is_named_as_a_unit(double factor, AgreementVerdict expected)
    {
        var check = new AgreementCheck(AgreementQuantity.WriteLogTime);

        Feed(check, 12, events: 2.0 * factor, server: 2.0);

        Assert.Equal(expected, check.Reported);
        Assert.Equal(factor, check.Ratio!.Value, 6);
    }

    [Fact]
    public void Instance_wide_waits_may_exceed_the_watched_databases_but_never_fall_short_of_them()
    {
        var filtered = new AgreementCheck(AgreementQuantity.WriteLogTime);
        Assert.Equal([AgreementVerdict.Agrees], Feed(filtered, 4, events: 1.0, server: 3.0));

        var doubled = new AgreementCheck(AgreementQuantity.WriteLogTime);
        Assert.Equal([AgreementVerdict.Disagrees], Feed(doubled, 4, events: 6.0, server: 3.0));
    }

    [Fact]
    public void Flush_wait_time_judges_only_the_unit_until_its_meaning_is_checked_on_a_real_server()
    {
        var check = new AgreementCheck(AgreementQuantity.FlushWaitTime);

        Assert.Equal([AgreementVerdict.Agrees], Feed(check, 4, events: 3.0, server: 1.0));
        Assert.Equal([AgreementVerdict.ThousandTimesLess], Feed(check, 4, events: 0.001, server: 1.0));
    }

    [Fact]
    public void Restart_forgets_the_window_and_the_streak()
    {
        var check = new AgreementCheck(AgreementQuantity.Flushes);
        Feed(check, 12, events: 100, server: 1000);
        Assert.Equal(AgreementVerdict.Disagrees, check.Reported);

        check.Restart();
        Feed(check, 3, events: 100, server: 1000);

        Assert.Null(check.Reported);
    }
}

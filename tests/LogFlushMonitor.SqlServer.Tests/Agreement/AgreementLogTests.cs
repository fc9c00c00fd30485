using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Sources;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Agreement;

/// <summary>Issue 19 item 2: a lasting disagreement is said once in the log and named in /readyz until it ends.</summary>
public class AgreementLogTests
{
    [Fact]
    public void A_disagreement_is_logged_with_both_figures_and_the_cause_and_degrades_readiness_until_it_ends()
    {
        var health = new SourceHealth();
        var logger = new CapturingLogger();
        var log = new AgreementLog(logger, health);

        log.Report(new AgreementReport("sql1", AgreementQuantity.Flushes, AgreementVerdict.Disagrees, 200, 400));

        var line = Assert.Single(logger.Lines, l => l.EventId == 322);
        Assert.Contains("flushes", line.Message, StringComparison.Ordinal);
        Assert.Contains("events 200, server 400", line.Message, StringComparison.Ordinal);
        Assert.Contains("events missing", line.Message, StringComparison.Ordinal);
        var problem = Assert.Single(health.Problems("sql1"));
        Assert.Contains("disagree on flushes", problem, StringComparison.Ordinal);

        log.Report(new AgreementReport("sql1", AgreementQuantity.Flushes, null, 400, 400));
        Assert.Single(logger.Lines, l => l.EventId == 323);
        Assert.Empty(health.Problems("sql1"));
    }

    [Fact]
    public void A_corrected_unit_is_logged_and_leaves_no_problem()
    {
        var health = new SourceHealth();
        var logger = new CapturingLogger();
        new AgreementLog(logger, health).Report(
            new AgreementReport("sql1", AgreementQuantity.WriteLogTime, AgreementVerdict.ThousandTimesMore, 8000, 8, "wait durations are now multiplied by 0.001"));

        var line = Assert.Single(logger.Lines, l => l.EventId == 324);
        Assert.Contains("multiplied by 0.001", line.Message, StringComparison.Ordinal);
        Assert.Empty(health.Problems("sql1"));
    }
}

using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Simulation.Tests;

/// <summary>
/// The simulator's statements (issue 34 item 4): six query hashes with known shares of the waited commits and of each
/// database's log in Query Store (56, 32, 16, 12, 8 and 4 of 128, typed here from the issue's design, not read from the
/// simulator), the text only when StatementText allows it.
/// </summary>
public class StatementShareTests
{
    private static readonly (string Hash, int Share)[] Known =
    [
        ("0x4F7A1C2D3E5B6A79", 56), ("0x1B2C3D4E5F607182", 32), ("0x8899AABBCCDDEEF0", 16), ("0x0123456789ABCDEF", 12), ("0x7E6D5C4B3A291807", 8), ("0x5A5A5A5A12345678", 4),
    ];

    private static RecordingSink Run(bool text)
    {
        var sink = new RecordingSink();
        SimulationScenarios.Create("autocommit", LightWorkload.Options with { StatementText = text }).Run(ScenarioShapeTests.T0, TimeSpan.FromMinutes(3), sink);
        return sink;
    }

    [Fact]
    public void Waited_commits_and_query_store_split_by_the_known_shares()
    {
        var sink = Run(text: true);

        // Every WRITELOG wait names its statement; over thousands of waits each share is within 2 points of its own.
        var waits = sink.Waits.Where(w => w.WaitType == "WRITELOG").ToList();
        Assert.True(waits.Count > 5_000, $"{waits.Count} waits");
        Assert.All(waits, w => Assert.NotNull(w.QueryHash));
        foreach (var (hash, share) in Known)
        {
            var seen = waits.Count(w => QueryHashes.Format(w.QueryHash!.Value) == hash) / (double)waits.Count;
            Assert.InRange(seen, (share / 128.0) - 0.02, (share / 128.0) + 0.02);
        }

        // Query Store answers every minute: the first answer is the baseline, then each statement's log is its share of the
        // database's (integer division of the database's increase, so within one byte per statement).
        var polls = sink.Rows<QueryStoreRow>().GroupBy(r => r.TimestampUtc).ToList();
        Assert.InRange(polls.Count, 3, 4); // at 0, 1, 2 minutes (and at the end)
        Assert.All(polls[0], r => Assert.Equal(0, r.Row.LogBytes)); // the baseline
        foreach (var poll in polls.Skip(1))
        {
            foreach (var db in poll.Select(p => p.Row).GroupBy(r => r.Database))
            {
                var total = Assert.Single(db, r => r.QueryHash is null);
                Assert.True(total.LogBytes > 0, db.Key);
                foreach (var (hash, share) in Known)
                {
                    var row = Assert.Single(db, r => r.QueryHash == hash);
                    Assert.InRange(row.LogBytes, (total.LogBytes * share / 128.0) - 1, total.LogBytes * share / 128.0);
                    Assert.NotNull(row.Text);
                    Assert.False(row.Text!.StartsWith("(@", StringComparison.Ordinal), row.Text); // no parameter declarations
                }
            }
        }
    }

    [Fact]
    public void With_statement_text_off_query_store_rows_carry_no_text()
    {
        var rows = Run(text: false).Values<QueryStoreRow>();
        Assert.NotEmpty(rows);
        Assert.All(rows, r => Assert.Null(r.Text));
    }
}

using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Core.Tests.XEvents;

public class FlushPairTableTests
{
    private static readonly long T0 = new DateTime(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc).Ticks;

    private static long Ms(double ms) => T0 + (long)(ms * TimeSpan.TicksPerMillisecond);

    [Fact]
    public void A_complete_finds_its_start_by_database_and_log_block_and_gives_the_time_between_them()
    {
        var table = new FlushPairTable();
        table.Start(5, 100, Ms(0));
        table.Start(6, 100, Ms(0.1)); // same block id, another database
        table.Start(5, 101, Ms(0.2));

        Assert.True(table.TryComplete(5, 101, Ms(0.35), out var start));
        Assert.Equal(Ms(0.2), start);
        Assert.True(table.TryComplete(6, 100, Ms(1), out start));
        Assert.Equal(Ms(0.1), start);
        Assert.False(table.TryComplete(7, 100, Ms(1), out _)); // never started
        Assert.Equal(1, table.Count);
        Assert.Equal(2, table.Matched);
    }

    [Fact]
    public void A_start_whose_complete_was_lost_is_retired_when_a_later_flush_of_its_database_completes_after_the_grace_period()
    {
        var table = new FlushPairTable(grace: TimeSpan.FromSeconds(10));
        table.Start(5, 1, Ms(0)); // its complete is lost
        for (var i = 2; i < 50; i++)
        {
            table.Start(5, (ulong)i, Ms(i * 100));
            Assert.True(table.TryComplete(5, (ulong)i, Ms((i * 100) + 1), out _));
        }

        Assert.Equal(1, table.Outstanding(5).Count); // within 10 s it may still complete
        table.Start(5, 60, Ms(10_500));
        Assert.True(table.TryComplete(5, 60, Ms(10_501), out _));

        Assert.Equal(0, table.Outstanding(5).Count);
        Assert.Equal(1, table.Retired);
        Assert.Equal(0, table.Count);
    }

    [Fact]
    public void In_a_stall_nothing_completes_so_the_starts_stay_and_their_age_is_readable_per_database()
    {
        var table = new FlushPairTable(grace: TimeSpan.FromSeconds(10));
        for (var i = 0; i < 8; i++)
        {
            table.Start(5, (ulong)i, Ms(i * 10));
        }

        table.Start(6, 1, Ms(50));
        Assert.True(table.TryComplete(6, 1, Ms(60), out _)); // another database completing retires nothing of database 5

        var all = table.Outstanding();
        var five = Assert.Single(all);
        Assert.Equal(new OutstandingFlushes(5, 8, new DateTime(Ms(0), DateTimeKind.Utc)), five);
        Assert.Equal(0, table.Retired);
        Assert.Equal(0, table.Outstanding(6).Count);

        // The oldest completes: the next one is now the oldest.
        Assert.True(table.TryComplete(5, 0, Ms(105_000), out _)); // 105 s later: the others are older than the grace period too
        Assert.Equal(0, table.Outstanding(5).Count);
        Assert.Equal(7, table.Retired);
    }

    [Fact]
    public void RetireAll_lets_go_of_every_outstanding_start_counts_them_and_the_table_keeps_pairing()
    {
        var table = new FlushPairTable(concurrentReaders: true);
        table.Start(5, 1, Ms(0));
        table.Start(5, 2, Ms(1));
        table.Start(6, 1, Ms(2));

        Assert.Equal(3, table.RetireAll());
        Assert.Equal((0, 3L), (table.Count, table.Retired));
        Assert.Empty(table.Outstanding());
        Assert.False(table.TryComplete(5, 1, Ms(3), out _));
        table.Start(5, 3, Ms(4));
        Assert.True(table.TryComplete(5, 3, Ms(5), out var start));
        Assert.Equal(Ms(4), start);
    }

    [Fact]
    public void Database_ids_outside_0_to_32767_still_pair_and_keep_one_queue_each()
    {
        var table = new FlushPairTable();
        foreach (var db in new[] { 40_000, -3, int.MaxValue, 32_767 })
        {
            table.Start(db, 1, Ms(0));
            table.Start(db, 2, Ms(1));
            Assert.True(table.TryComplete(db, 1, Ms(2), out var start));
            Assert.Equal(Ms(0), start);
        }

        Assert.Equal(4, table.Outstanding().Count);
        Assert.All(table.Outstanding(), o => Assert.Equal(1, o.Count));
    }

    [Fact]
    public void A_full_table_makes_room_by_evicting_the_oldest_start_of_the_database_being_added_and_counts_it()
    {
        var table = new FlushPairTable(capacity: 4);
        for (var i = 0; i < 6; i++)
        {
            table.Start(5, (ulong)i, Ms(i));
        }

        Assert.Equal(4, table.Count);
        Assert.Equal(2, table.Evicted);
        Assert.False(table.TryComplete(5, 0, Ms(10), out _));
        Assert.True(table.TryComplete(5, 5, Ms(10), out _));
        Assert.Equal(new DateTime(Ms(2), DateTimeKind.Utc), table.Outstanding(5).OldestStartUtc);
    }

    [Fact]
    public void Many_starts_and_completes_in_any_order_keep_the_table_consistent_with_a_dictionary()
    {
        var table = new FlushPairTable(capacity: 64, grace: TimeSpan.FromDays(1));
        var expected = new Dictionary<(int, ulong), long>();
        var rng = new Random(3);
        for (var step = 0; step < 20_000; step++)
        {
            var db = rng.Next(1, 4);
            var block = (ulong)rng.Next(0, 200);
            if (rng.Next(2) == 0 && expected.Count < 60)
            {
                table.Start(db, block, Ms(step));
                expected[(db, block)] = Ms(step);
            }
            else
            {
                var found = table.TryComplete(db, block, Ms(step), out var start);
                Assert.Equal(expected.Remove((db, block), out var want), found);
                if (found)
                {
                    Assert.Equal(want, start);
                }
            }

            Assert.Equal(expected.Count, table.Count);
        }

        Assert.Equal(expected.Count, table.Remaining().Count());
    }

    [Fact]
    public async Task Outstanding_may_be_read_from_another_thread_while_the_reader_thread_writes()
    {
        var table = new FlushPairTable(capacity: 256, concurrentReaders: true);
        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            ulong block = 0;
            while (!stop.IsCancellationRequested)
            {
                table.Start(5, block, Ms(block));
                table.Start(6, block, Ms(block));
                if (block >= 3)
                {
                    table.TryComplete(5, block - 3, Ms(block), out _);
                    table.TryComplete(6, block - 3, Ms(block), out _);
                }

                block++;
            }
        });

        for (var i = 0; i < 2000; i++)
        {
            foreach (var o in table.Outstanding())
            {
                // Every consistent read has 1 to 4 outstanding per database (a torn read could show anything).
                Assert.InRange(o.Count, 1, 4);
                Assert.True(o.OldestStartUtc.Ticks >= T0);
            }
        }

        await stop.CancelAsync();
        await writer;
    }
}

using LogFlushMonitor.Core.Health;
using LogFlushMonitor.SqlServer.Connections;

namespace LogFlushMonitor.SqlServer.Tests.Resilience;

/// <summary>A collector reading a component's last success while a stream thread writes it sees one whole value.</summary>
public sealed class SourceHealthSnapshotTests
{
    private static readonly DateTimeOffset Early = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);
    private static readonly DateTimeOffset Late = new(2099, 12, 31, 23, 59, 59, TimeSpan.Zero);

    [Fact]
    public async Task Last_success_is_never_read_torn_while_another_thread_writes_it()
    {
        var clock = new FlipClock();
        var health = new SourceHealth(clock);
        health.Succeeded("prod1", "stream");
        using var stop = new CancellationTokenSource();

        // A writer flips between two times whose every byte differs, and between up and down.
        var writer = Task.Run(() =>
        {
            for (var i = 0; i < 2_000_000 && !stop.IsCancellationRequested; i++)
            {
                clock.Flip();
                if (i % 3 == 0)
                {
                    health.Failed("prod1", "stream", SqlErrorKinds.Disconnected);
                }
                else
                {
                    health.Succeeded("prod1", "stream");
                }
            }
        });
        var seen = new HashSet<DateTimeOffset?>();
        while (!writer.IsCompleted)
        {
            seen.Add(health.LastSuccess("prod1", "stream"));
        }

        await writer;
        Assert.Subset(new HashSet<DateTimeOffset?> { Early, Late }, seen);
    }

    private sealed class FlipClock : TimeProvider
    {
        private int _late;

        public void Flip() => _late ^= 1;

        public override DateTimeOffset GetUtcNow() => _late == 1 ? Late : Early;
    }
}

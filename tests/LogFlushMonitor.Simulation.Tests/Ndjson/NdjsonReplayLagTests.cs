using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Simulation.Tests.Ndjson;

public class NdjsonReplayLagTests
{
    private static readonly DateTime T0 = ScenarioShapeTests.T0;

    [Fact]
    public async Task A_paced_replay_that_falls_behind_its_speed_says_so_once_per_interval()
    {
        using var recording = new MemoryStream();
        using (var writer = new NdjsonSampleWriter(recording, leaveOpen: true))
        {
            for (var i = 0; i < 5; i++)
            {
                writer.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, (ulong)i, T0.AddSeconds(i)));
            }
        }

        var time = new ManualTimeProvider(new DateTimeOffset(2030, 1, 1, 0, 0, 0, TimeSpan.Zero));
        var sink = new RecordingSink();
        var reports = new List<NdjsonReplayLag>();
        using var stream = new MemoryStream(recording.ToArray());
        var replay = NdjsonReplay.ReplayAsync(stream, "lagging", sink, new NdjsonReplayOptions
        {
            Speed = 1,
            Time = time,
            OnBehind = lag =>
            {
                lock (reports)
                {
                    reports.Add(lag);
                }
            },
        });

        // The second sample waits 1 s; the clock jumps 5 s (a stalled machine): the third sample is 3 s late, the
        // fourth and fifth are late too but within the report interval.
        await Eventually.Until(() => time.PendingTimers == 1);
        time.Jump(TimeSpan.FromSeconds(5)); // Advance would stop at 1 s to fire the wait, and the replay could read that time
        var summary = await replay.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(5, summary.Samples);
        var report = Assert.Single(reports);
        Assert.Equal(TimeSpan.FromSeconds(3), report.Behind);
        Assert.Equal(2 / 5.0, report.ActualSpeed, 3);
    }

    [Fact]
    public async Task A_replay_on_schedule_reports_nothing()
    {
        using var recording = new MemoryStream();
        using (var writer = new NdjsonSampleWriter(recording, leaveOpen: true))
        {
            for (var i = 0; i < 3; i++)
            {
                writer.OnLogFlush(new LogFlushEvent("sql1", 5, "shop", 512, (ulong)i, T0.AddSeconds(i)));
            }
        }

        var time = new ManualTimeProvider(new DateTimeOffset(2030, 1, 1, 0, 0, 0, TimeSpan.Zero));
        var reports = 0;
        using var stream = new MemoryStream(recording.ToArray());
        var sink = new RecordingSink();
        var replay = NdjsonReplay.ReplayAsync(stream, "on time", sink, new NdjsonReplayOptions { Speed = 1, Time = time, OnBehind = _ => reports++ });
        await Eventually.Until(() => time.PendingTimers == 1);
        time.Advance(TimeSpan.FromSeconds(1));
        await Eventually.Until(() => sink.All.Count == 2 && time.PendingTimers == 1);
        time.Advance(TimeSpan.FromSeconds(1));
        await replay.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(0, reports);
    }
}

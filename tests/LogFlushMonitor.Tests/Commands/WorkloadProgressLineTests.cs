using LogFlushMonitor.Commands;
using LogFlushMonitor.Workload;

namespace LogFlushMonitor.Tests.Commands;

public class WorkloadProgressLineTests
{
    private static async Task Until(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "condition not met within 10 s");
            await Task.Delay(10);
        }
    }

    [Fact]
    public async Task Without_a_terminal_a_whole_line_is_written_every_five_seconds()
    {
        var time = new ManualTimeProvider();
        var output = new SharedWriter();
        var done = new TaskCompletionSource();
        var commits = 0L;
        var follow = new WorkloadProgressLine(output, terminal: false, time).FollowAsync(
            () => new WorkloadProgress(WorkloadScenario.Batched, TimeSpan.FromSeconds(10), TimeSpan.FromMinutes(2), commits, commits * 100, 1), done.Task);

        commits = 2000;
        time.Advance(TimeSpan.FromSeconds(4));
        time.Advance(TimeSpan.FromSeconds(1));
        await Until(() => output.Text.Contains('\n'));
        time.Advance(TimeSpan.FromSeconds(5));
        await Until(() => output.Text.Split('\n').Length == 3);
        done.SetResult();
        await follow;

        var lines = output.Text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        Assert.Equal("workload batched: 10.0 s of 2m 00s, 2,000 commits (200/s), 200,000 rows (20,000/s), 1 errors", lines[0]);
        Assert.DoesNotContain('\r', output.Text);
    }

    [Fact]
    public async Task On_a_terminal_the_line_is_rewritten_in_place_every_second()
    {
        var time = new ManualTimeProvider();
        var output = new SharedWriter();
        var done = new TaskCompletionSource();
        var commits = 123456L;
        var follow = new WorkloadProgressLine(output, terminal: true, time).FollowAsync(
            () => new WorkloadProgress(WorkloadScenario.Autocommit, TimeSpan.FromSeconds(1), null, commits, commits, 0), done.Task);

        time.Advance(TimeSpan.FromSeconds(1));
        await Until(() => output.Text.Length > 0);
        commits = 7;
        time.Advance(TimeSpan.FromSeconds(1));
        await Until(() => output.Text.Split('\r').Length == 3);
        done.SetResult();
        await follow;

        var parts = output.Text.Split('\r');
        Assert.Equal("workload autocommit: 1.0 s, 123,456 commits (123,456/s), 123,456 rows (123,456/s), 0 errors", parts[1]);
        // The shorter second line covers the first with spaces, and the run ends with a newline.
        Assert.Equal(parts[1].Length, parts[2].TrimEnd('\n').Length);
        Assert.StartsWith("workload autocommit: 1.0 s, 7 commits (7/s)", parts[2], StringComparison.Ordinal);
        Assert.EndsWith("\n", parts[2], StringComparison.Ordinal);
    }

    /// <summary>A StringWriter the progress line writes to from a timer thread while the test reads it.</summary>
    private sealed class SharedWriter : StringWriter
    {
        public string Text
        {
            get
            {
                lock (this)
                {
                    return ToString();
                }
            }
        }

        public override void Write(string? value)
        {
            lock (this)
            {
                base.Write(value);
            }
        }

        public override void WriteLine(string? value)
        {
            lock (this)
            {
                base.WriteLine(value);
            }
        }

        public override void WriteLine()
        {
            lock (this)
            {
                base.WriteLine();
            }
        }
    }
}

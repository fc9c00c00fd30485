using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Hosting;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Tests.Hosting;

public class ReadinessTests
{
    private static readonly TimeSpan Grace = TimeSpan.FromMinutes(2);

    private static (Readiness Readiness, SourceHealth Health, ManualTimeProvider Time) Create()
    {
        var time = new ManualTimeProvider(new DateTimeOffset(2026, 11, 22, 12, 0, 0, TimeSpan.Zero));
        var health = new SourceHealth(time);
        var readiness = new Readiness(health, time, Grace);
        readiness.HostStarted();
        return (readiness, health, time);
    }

    [Fact]
    public void A_sql_source_is_not_ready_until_every_instance_delivered_once()
    {
        var (readiness, health, _) = Create();
        readiness.NotReady(ReadinessComponents.SqlServerSource, "starting");
        Assert.False(readiness.Check().Ready);

        readiness.ExpectInstances(ReadinessComponents.SqlServerSource, ["sql1", "sql2"]);
        health.Failed("sql2", SourceComponents.Poller, "login_failed");
        health.Succeeded("sql1", SourceComponents.Poller);
        var (ready, body) = readiness.Check();

        Assert.False(ready);
        var sql = readiness.Report().Components[ReadinessComponents.SqlServerSource];
        Assert.Equal("waiting", sql.State);
        Assert.Equal("up", sql.Instances!["sql1"]);
        Assert.Equal("waiting", sql.Instances["sql2"]);
        Assert.Contains("\"sql2\":\"waiting\"", body, StringComparison.Ordinal);

        health.Succeeded("sql2", SourceComponents.Poller);
        Assert.True(readiness.Check().Ready);
    }

    [Fact]
    public void An_instance_down_within_the_grace_period_is_degraded_but_ready_and_past_it_not_ready()
    {
        var (readiness, health, time) = Create();
        readiness.ExpectInstances(ReadinessComponents.SqlServerSource, ["sql1"]);
        health.Succeeded("sql1", SourceComponents.Poller);
        health.Succeeded("sql1", SourceComponents.Stream);
        Assert.True(readiness.Check().Ready);

        health.Failed("sql1", SourceComponents.Stream, "disconnected");
        health.Failed("sql1", SourceComponents.Poller, "disconnected");
        time.Advance(Grace - TimeSpan.FromSeconds(1));
        Assert.True(readiness.Check().Ready);
        Assert.Equal("degraded", readiness.Report().Components[ReadinessComponents.SqlServerSource].State);

        time.Advance(TimeSpan.FromSeconds(2));
        var (ready, body) = readiness.Check();
        Assert.False(ready);
        Assert.Contains("\"state\":\"down\"", body, StringComparison.Ordinal);

        health.Succeeded("sql1", SourceComponents.Poller); // the poller is back: something of the instance works again
        Assert.True(readiness.Check().Ready);
    }

    [Fact]
    public void A_source_that_expects_a_first_delivery_waits_for_it_and_nothing_is_ready_before_the_host_started()
    {
        var time = new ManualTimeProvider(DateTimeOffset.UnixEpoch);
        var readiness = new Readiness(new SourceHealth(time), time, Grace);
        readiness.Expect(ReadinessComponents.ReplaySource);
        Assert.Equal("starting", readiness.Report().Status);

        readiness.HostStarted();
        Assert.Equal(("not_ready", "waiting"), (readiness.Report().Status, readiness.Report().Components[ReadinessComponents.ReplaySource].State));

        readiness.Delivered(ReadinessComponents.ReplaySource);
        Assert.True(readiness.Check().Ready);
        readiness.NotReady(ReadinessComponents.ReplaySource, "stopping");
        Assert.False(readiness.Check().Ready);
    }
}

public class LogEscapingTests
{
    [Theory]
    [InlineData("plain HOST\\INSTANCE", "plain HOST\\INSTANCE")]
    [InlineData("a\nb\r\tc", "a\\nb\\r\\tc")]
    [InlineData("x\u001b[31my\u007f\u0085\u2028", "x\\u001B[31my\\u007F\\u0085\\u2028")]
    public void Control_characters_are_escaped_and_backslashes_kept(string raw, string escaped) =>
        Assert.Equal(escaped, LogEscaping.Escape(raw));

    [Fact]
    public void A_string_without_control_characters_is_returned_as_it_is()
    {
        var s = "orders";
        Assert.Same(s, LogEscaping.Escape(s));
    }
}

/// <summary>Exception text in the logs: a hostile message cannot forge a line or reach the terminal as a command.</summary>
public class ExceptionLogEscapingTests
{
    private static Exception Thrown()
    {
        try
        {
            try
            {
                throw new InvalidOperationException("inner \u001b]0;title\u0007 database\nFORGED-INNER line");
            }
            catch (InvalidOperationException inner)
            {
                throw new IOException("Cannot open database \"\u001b[31morders\u001b[0m\"\n[12:00:00 INF] FORGED line", inner);
            }
        }
        catch (IOException e)
        {
            return e;
        }
    }

    private static string LogAndRead(string format)
    {
        var directory = Directory.CreateTempSubdirectory("lfm-log-escape-");
        try
        {
            var file = Path.Combine(directory.FullName, "monitor.log");
            var logger = Logging.Create(new ConfigurationBuilder().Build(), new LogOptions { Format = format, File = file });
            logger.Error(Thrown(), "Poll failed for {Instance}", "sql1");
            ((IDisposable)logger).Dispose();
            var written = Directory.GetFiles(directory.FullName).Single();
            return File.ReadAllText(written);
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }

    [Fact]
    public void Text_logs_escape_exception_messages_and_keep_the_stack_trace_lines()
    {
        var text = LogAndRead("text");
        var lines = text.Split('\n');

        Assert.DoesNotContain('\u001b', text);
        Assert.DoesNotContain('\u0007', text);
        Assert.DoesNotContain(lines, l => l.StartsWith("[12:00:00 INF] FORGED", StringComparison.Ordinal) || l.StartsWith("FORGED", StringComparison.Ordinal));
        Assert.Contains("System.IO.IOException: Cannot open database \"\\u001B[31morders\\u001B[0m\"\\n[12:00:00 INF] FORGED line", text, StringComparison.Ordinal);
        Assert.Contains("inner \\u001B]0;title\\u0007 database\\nFORGED-INNER line", text, StringComparison.Ordinal);
        Assert.Contains(lines, l => l.StartsWith("   at ", StringComparison.Ordinal)); // the stack trace keeps its lines
        Assert.Contains("ERR] : Poll failed for sql1", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Json_logs_carry_the_exception_once_as_an_escaped_json_string()
    {
        var json = LogAndRead("json");
        Assert.DoesNotContain('\u001b', json);
        Assert.DoesNotContain(LogEscaping.ExceptionTextProperty, json, StringComparison.Ordinal);
        using var doc = System.Text.Json.JsonDocument.Parse(json.Trim().Split('\n').Single());
        var exception = doc.RootElement.GetProperty("Exception").GetString()!;
        Assert.Contains("Cannot open database \"\u001b[31morders", exception, StringComparison.Ordinal); // escaped by JSON, intact once parsed
    }
}

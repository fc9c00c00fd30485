using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Workload;

/// <summary>
/// <c>logflushmonitor workload</c> against the scripted server: through the real executable where the environment
/// (docker-compose.yml's configuration) or Ctrl+C is the point, in-process where only the output is.
/// </summary>
public sealed class WorkloadCommandTests
{
    /// <summary>The server configured the way docker-compose.yml's workload service does it.</summary>
    private static Dictionary<string, string> ComposeEnvironment(ScriptedSqlServer server) => new()
    {
        ["LOGFLUSHMONITOR__Sources__SqlServer__Instances__0__Name"] = "sql1",
        ["LOGFLUSHMONITOR__Sources__SqlServer__Instances__0__ConnectionStringEnvironmentVariable"] = "WORKLOAD_SQL",
        ["WORKLOAD_SQL"] = server.ConnectionString(),
    };

    [Fact]
    public async Task Workload_reads_the_server_from_the_configuration_runs_each_scenario_and_ends_with_the_table()
    {
        await using var server = new ScriptedSqlServer();
        using var run = CliProcess.Start(
            ["workload", "--scenario", "autocommit,batched", "--rows", "40", "--batch-size", "10", "--sessions", "2", "--drop"], ComposeEnvironment(server));
        var code = await run.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.True(code == 0, $"exit {code}: {run.StdErr}");
        var lines = run.StdOut.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        Assert.StartsWith("scenario", lines[0], StringComparison.Ordinal);
        Assert.Matches(@"^autocommit\s+2\s+1\s+[\d.]+ s\s+40\s+[\d,.]+\s+40\s+[\d,.]+\s+[\d,.]+\s+[\d,.]+\s+0\s+done$", lines[1]);
        Assert.Matches(@"^batched\s+2\s+10\s+[\d.]+ s\s+4\s+[\d,.]+\s+40\s+[\d,.]+\s+[\d,.]+\s+[\d,.]+\s+0\s+done$", lines[2]);
        Assert.Matches(@"^total\s+[\d.]+ s\s+44\s+[\d,.]+\s+80\s+", lines[3]);

        // Each scenario's window, and the compare line that judges the change from the first to the second (issue 34):
        // two ranges, the second after the first, each within the run.
        var compare = Assert.Single(lines, l => l.StartsWith("logflushmonitor compare RECORDING RECORDING", StringComparison.Ordinal));
        var windows = System.Text.RegularExpressions.Regex.Matches(compare, @"--(before|after)-window (\S+)/(\S+)")
            .Select(m => (From: DateTime.Parse(m.Groups[2].Value, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.AdjustToUniversal),
                To: DateTime.Parse(m.Groups[3].Value, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.AdjustToUniversal))).ToList();
        Assert.Equal(2, windows.Count);
        Assert.True(windows[0].From < windows[0].To && windows[0].To <= windows[1].From && windows[1].From < windows[1].To, compare);
        Assert.InRange(windows[0].From, DateTime.UtcNow.AddMinutes(-2), DateTime.UtcNow);
        Assert.Equal(80, server.RowsInserted);
        Assert.DoesNotContain(server.Databases, d => d.Name == "LogFlushMonitorWorkload");
        Assert.Contains("dropped the database LogFlushMonitorWorkload", run.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain(ScriptedSqlServer.Password, run.StdOut + run.StdErr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Ctrl_C_stops_the_workload_cleanly_with_the_table_of_what_ran()
    {
        await using var server = new ScriptedSqlServer();
        using var run = CliProcess.Start(["workload", "--scenario", "batched", "--duration", "1h", "--batch-size", "5"], ComposeEnvironment(server));
        // Some batches commit, then the server stops answering INSERTs: the run is stuck in a statement when Ctrl+C comes.
        await server.Server.WaitForRequestAsync(r => r.Text.StartsWith("COMMIT", StringComparison.Ordinal) && server.RowsInserted >= 10, TimeSpan.FromSeconds(60));
        var before = server.Server.Requests.ToHashSet(ReferenceEqualityComparer.Instance);
        server.Hang(TimeSpan.FromMinutes(10), "INSERT dbo.WorkloadRows");
        await server.Server.WaitForRequestAsync(r => r.Text.StartsWith("INSERT", StringComparison.Ordinal) && !before.Contains(r), TimeSpan.FromSeconds(30));

        run.Interrupt();
        var code = await run.WaitAsync(TimeSpan.FromSeconds(20));

        Assert.True(code == 0, $"exit {code}: {run.StdErr}");
        Assert.Matches(@"batched\s+1\s+5\s+[\d.]+ s\s+\d+\s+[\d,.]+\s+\d+\s+[\d,.]+\s+[\d,.-]+\s+[\d,.-]+\s+0\s+stopped \(Ctrl\+C\)", run.StdOut);
        Assert.Contains("stopped early (Ctrl+C); open transactions were rolled back", run.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain("Exception", run.StdErr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Overhead_runs_the_scenario_without_and_with_the_session_and_prints_the_comparison()
    {
        await using var server = new ScriptedSqlServer();
        var (code, stdout, stderr) = await InProcessProgram.RunAsync(Program.InvokeAsync,
            "workload", "--scenario", "autocommit", "--rows", "10", "--overhead",
            "--Sources:SqlServer:Instances:0:Name=sql1", $"--Sources:SqlServer:Instances:0:ConnectionString={server.ConnectionString()}",
            "--Sources:SqlServer:Instances:0:SessionName=lfm");

        Assert.True(code == 0, stderr);
        Assert.Contains("each run twice: without, then with the event session lfm_overhead", stderr, StringComparison.Ordinal);
        Assert.Matches(@"autocommit \(session off\)\s+1\s+1\s+[\d.]+ s\s+10\s", stdout);
        Assert.Matches(@"autocommit \(session on\)\s+1\s+1\s+[\d.]+ s\s+10\s", stdout);
        Assert.Contains("What the event session cost: autocommit, 1 session(s)", stdout, StringComparison.Ordinal);
        Assert.Matches(@"commits/s\s+[\d,.]+\s+[\d,.]+\s+[+-]?[\d.]+ %", stdout);
        Assert.Contains("the session, as the server measured it:", stdout, StringComparison.Ordinal);
        Assert.Equal((false, false), server.EventSession("lfm_overhead"));
    }

    [Fact]
    public async Task Overhead_needs_a_duration_or_rows_like_any_run()
    {
        var (code, _, stderr) = await InProcessProgram.RunAsync(Program.InvokeAsync,
            "workload", "--scenario", "autocommit", "--overhead", "--connection-string-env", "LFM_NO_SUCH_VARIABLE_30");

        Assert.Equal(2, code);
        Assert.Contains("--duration is missing", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_database_that_is_not_the_workloads_exits_with_2_naming_the_option()
    {
        await using var server = new ScriptedSqlServer();
        var (code, stdout, stderr) = await InProcessProgram.RunAsync(Program.InvokeAsync,
            "workload", "--scenario", "autocommit", "--rows", "1", "--database", "sales",
            "--Sources:SqlServer:Instances:0:Name=sql1", $"--Sources:SqlServer:Instances:0:ConnectionString={server.ConnectionString()}");

        Assert.Equal(2, code);
        Assert.Contains("--database sales exists and was not created by logflushmonitor workload", stderr, StringComparison.Ordinal);
        Assert.Equal("", stdout);
    }
}

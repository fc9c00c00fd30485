using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.Workload;
using LogFlushMonitor.TdsTestServer;
using LogFlushMonitor.SqlServer.Connections;

namespace LogFlushMonitor.SqlServer.Tests.Workload;

/// <summary>Every statement of the workload through the real SqlClient against the scripted server: what each scenario sends, and in which transactions.</summary>
public sealed class WorkloadRunnerTests
{
    private const string Db = "LogFlushMonitorWorkload";

    private static WorkloadOptions Options(ScriptedSqlServer server, params WorkloadScenario[] scenarios) => new()
    {
        Server = SqlServerDataSource.FromConnectionString("scripted", server.ConnectionString()),
        Scenarios = scenarios,
        RowsPerScenario = 20,
        RetryDelay = TimeSpan.FromMilliseconds(10),
        MaxRetryDelay = TimeSpan.FromMilliseconds(50),
    };

    /// <summary>What the workload's sessions sent, per connection, as short words: BEGIN, INSERT, INSERT×1000, COMMIT...</summary>
    private static List<List<string>> SessionShapes(ScriptedSqlServer server, string database = Db) =>
        [.. server.Server.Requests
            .Where(r => r.Login.Database == database && (r.Kind == TdsRequestKind.Transaction || r.Text.StartsWith("INSERT", StringComparison.Ordinal)))
            .GroupBy(r => r.ConnectionId)
            .Select(g => g.Select(Word).ToList())];

    private static string Word(TdsRequest r) => r.Kind == TdsRequestKind.Transaction ? r.Text.Split(' ')[0]
        : r.Parameters.ContainsKey("@rows") ? $"INSERT×{r.Parameter("rows")}"
        : r.Text.Contains("NEXT VALUE FOR dbo.WorkloadSequenceNoCache", StringComparison.Ordinal) ? "INSERT nocache"
        : r.Text.Contains("NEXT VALUE FOR dbo.WorkloadSequenceCache", StringComparison.Ordinal) ? "INSERT cache"
        : r.Text.StartsWith("INSERT", StringComparison.Ordinal) ? "INSERT"
        : r.Text;

    private static List<string> Batch(int rows, string insert = "INSERT") => ["BEGIN", .. Enumerable.Repeat(insert, rows), "COMMIT"];

    [Fact]
    public async Task Autocommit_sends_one_insert_per_row_and_no_explicit_transaction()
    {
        await using var server = new ScriptedSqlServer();
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit), CancellationToken.None);

        Assert.Equal(WorkloadOutcome.Completed, result.Outcome);
        var session = Assert.Single(SessionShapes(server));
        Assert.Equal(Enumerable.Repeat("INSERT", 20), session);
        var s = Assert.Single(result.Scenarios);
        Assert.Equal((20L, 20L, 0L, 1), (s.Commits, s.Rows, s.Errors, s.RowsPerTransaction));
        Assert.Equal(20, server.RowsInserted);
    }

    [Fact]
    public async Task Batched_commits_once_per_batch_of_k_rows()
    {
        await using var server = new ScriptedSqlServer();
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Batched) with { RowsPerScenario = 25, BatchSize = 10 }, CancellationToken.None);

        var session = Assert.Single(SessionShapes(server));
        Assert.Equal([.. Batch(10), .. Batch(10), .. Batch(5)], session);
        Assert.Equal((3L, 25L), (result.Commits, result.Rows));
    }

    [Fact]
    public async Task Big_transaction_inserts_set_based_chunks_and_commits_every_batch_size_rows()
    {
        await using var server = new ScriptedSqlServer();
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.BigTransaction) with { RowsPerScenario = 3500, BatchSize = 2000 }, CancellationToken.None);

        var session = Assert.Single(SessionShapes(server));
        Assert.Equal(["BEGIN", "INSERT×1000", "INSERT×1000", "COMMIT", "BEGIN", "INSERT×1000", "INSERT×500", "COMMIT"], session);
        Assert.Equal((2L, 3500L), (result.Commits, result.Rows));
        Assert.Equal(3500, server.RowsInserted);
    }

    [Fact]
    public async Task Big_transaction_with_batch_size_0_is_one_transaction_committed_at_the_end()
    {
        await using var server = new ScriptedSqlServer();
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.BigTransaction) with { RowsPerScenario = 2500, BatchSize = 0 }, CancellationToken.None);

        Assert.Equal(["BEGIN", "INSERT×1000", "INSERT×1000", "INSERT×500", "COMMIT"], Assert.Single(SessionShapes(server)));
        Assert.Equal(0, Assert.Single(result.Scenarios).RowsPerTransaction);
        Assert.Equal((1L, 2500L), (result.Commits, result.Rows));
    }

    [Fact]
    public async Task The_sequence_scenarios_take_values_from_their_own_sequence_in_batched_transactions()
    {
        await using var server = new ScriptedSqlServer();
        var result = await WorkloadRunner.RunAsync(
            Options(server, WorkloadScenario.SequenceNoCache, WorkloadScenario.SequenceCache) with { RowsPerScenario = 6, BatchSize = 3 }, CancellationToken.None);

        var shapes = SessionShapes(server);
        Assert.Equal(2, shapes.Count); // a connection per scenario
        Assert.Equal([.. Batch(3, "INSERT nocache"), .. Batch(3, "INSERT nocache")], shapes[0]);
        Assert.Equal([.. Batch(3, "INSERT cache"), .. Batch(3, "INSERT cache")], shapes[1]);
        Assert.Equal([2L, 2L], result.Scenarios.Select(s => s.Commits));
        Assert.Contains(server.Server.Requests, r => r.Text.Contains("CREATE SEQUENCE dbo.WorkloadSequenceNoCache AS bigint START WITH 1 INCREMENT BY 1 NO CACHE", StringComparison.Ordinal));
        Assert.Contains(server.Server.Requests, r => r.Text.Contains("CREATE SEQUENCE dbo.WorkloadSequenceCache AS bigint START WITH 1 INCREMENT BY 1 CACHE 1000", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Delayed_durability_is_forced_for_its_scenario_and_disabled_for_the_next()
    {
        await using var server = new ScriptedSqlServer();
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.DelayedDurability, WorkloadScenario.Autocommit) with { RowsPerScenario = 3 }, CancellationToken.None);

        Assert.Equal(WorkloadOutcome.Completed, result.Outcome);
        var words = server.Server.Requests
            .Select(r => r.Text.Contains("DELAYED_DURABILITY", StringComparison.Ordinal) ? r.Text[(r.Text.LastIndexOf(' ') + 1)..] : Word(r))
            .Where(w => w is "FORCED" or "DISABLED" or "INSERT").ToList();
        Assert.Equal(["FORCED", "INSERT", "INSERT", "INSERT", "DISABLED", "INSERT", "INSERT", "INSERT"], words);
        Assert.Equal("DISABLED", server.Database(Db).DelayedDurability);
        Assert.Equal(["delayed-durability", "autocommit"], result.Scenarios.Select(s => WorkloadScenarios.NameOf(s.Scenario)));
    }

    [Fact]
    public async Task The_database_is_created_quoted_marked_as_the_workloads_and_in_simple_recovery()
    {
        await using var server = new ScriptedSqlServer();
        const string Name = "Work]load db; DROP DATABASE sales --";
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit) with { Database = Name, RowsPerScenario = 2 }, CancellationToken.None);

        Assert.True(result.Outcome == WorkloadOutcome.Completed, result.Problem);
        Assert.Contains(server.Server.Requests, r => r.Text == "CREATE DATABASE [Work]]load db; DROP DATABASE sales --]");
        Assert.Equal("SIMPLE", server.Database(Name).RecoveryModel);
        Assert.True(server.IsMarkedAsWorkload(Name));
        Assert.Contains(server.Databases, d => d.Name == "sales");
        // The name travels as a parameter wherever the statement allows one.
        var lookup = Assert.Single(server.Server.Requests, r => r.Text.Contains("DB_ID(@database)", StringComparison.Ordinal));
        Assert.Equal(Name, lookup.Parameter("database"));
        // Sessions log into the workload's database under their own application name.
        var logins = server.Server.Logins.Where(l => l.Database == Name).ToList();
        Assert.NotEmpty(logins);
        Assert.All(server.Server.Logins, l => Assert.Equal(WorkloadConnector.ApplicationName, l.AppName));
        Assert.Equal(2, server.RowsInserted);
    }

    [Fact]
    public async Task An_existing_database_without_the_mark_is_refused_and_left_alone_even_with_drop()
    {
        await using var server = new ScriptedSqlServer();
        server.AddDatabase("Accounts");
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit) with { Database = "Accounts", Drop = true }, CancellationToken.None);

        Assert.Equal(WorkloadOutcome.Refused, result.Outcome);
        Assert.Contains("--database Accounts exists and was not created by logflushmonitor workload", result.Problem, StringComparison.Ordinal);
        Assert.Empty(result.Scenarios);
        Assert.False(result.Dropped);
        Assert.Contains(server.Databases, d => d.Name == "Accounts");
        Assert.DoesNotContain(server.Server.Requests, r => r.Text.Contains("ALTER DATABASE", StringComparison.Ordinal)
            || r.Text.Contains("CREATE TABLE", StringComparison.Ordinal) || r.Text.Contains("TRUNCATE", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_database_the_workload_created_earlier_is_used_again()
    {
        await using var server = new ScriptedSqlServer();
        await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit), CancellationToken.None);
        var second = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit), CancellationToken.None);

        Assert.Equal(WorkloadOutcome.Completed, second.Outcome);
        Assert.Single(server.Server.Requests, r => r.Text.StartsWith("CREATE DATABASE", StringComparison.Ordinal));
        Assert.Equal(40, server.RowsInserted);
    }

    [Fact]
    public async Task Drop_removes_the_database_at_the_end()
    {
        await using var server = new ScriptedSqlServer();
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit) with { Drop = true }, CancellationToken.None);

        Assert.True(result.Dropped);
        Assert.DoesNotContain(server.Databases, d => d.Name == Db);
        var drop = Assert.Single(server.Server.Requests, r => r.Text.Contains("DROP DATABASE", StringComparison.Ordinal));
        Assert.Equal($"ALTER DATABASE [{Db}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [{Db}];", drop.Text);
        Assert.Equal("master", drop.Login.Database);
        Assert.Equal(drop, server.Server.Requests[^1]); // after every session's last statement
    }

    [Fact]
    public async Task A_deadlock_is_retried_and_counted_and_its_rows_are_written_again()
    {
        await using var server = new ScriptedSqlServer();
        server.FailNext(1, 1205, "INSERT dbo.WorkloadRows");
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Batched) with { BatchSize = 10 }, CancellationToken.None);

        Assert.Equal(WorkloadOutcome.Completed, result.Outcome);
        var s = Assert.Single(result.Scenarios);
        Assert.Equal((1L, 2L, 20L, 0L), (s.Errors, s.Commits, s.Rows, s.Reconnects));
        // The victim's transaction is rolled back and the batch runs again on the same connection.
        Assert.Equal([.. (string[])["BEGIN", "INSERT", "ROLLBACK"], .. Batch(10), .. Batch(10)], Assert.Single(SessionShapes(server)));
    }

    [Fact]
    public async Task A_cut_connection_is_retried_on_a_new_connection_and_counted()
    {
        await using var server = new ScriptedSqlServer();
        server.CutNext(1, "INSERT dbo.WorkloadRows");
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit), CancellationToken.None);

        Assert.Equal(WorkloadOutcome.Completed, result.Outcome);
        var s = Assert.Single(result.Scenarios);
        Assert.Equal((1L, 1L, 20L), (s.Errors, s.Reconnects, s.Rows));
        var shapes = SessionShapes(server);
        Assert.Equal(2, shapes.Count);
        Assert.Equal(21, shapes.Sum(x => x.Count)); // the cut INSERT, then all 20 rows
    }

    [Fact]
    public async Task A_server_that_stays_unreachable_fails_the_run_and_says_so()
    {
        // A port bound but not listening: a connection is refused, and no other test can take the port meanwhile
        // (a server started and stopped to free a port left a window in which a parallel test reused it).
        using var reserved = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetwork, System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        reserved.Bind(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0));
        var port = ((System.Net.IPEndPoint)reserved.LocalEndPoint!).Port;

        var options = new WorkloadOptions
        {
            Server = SqlServerDataSource.FromConnectionString("gone", $"Server=127.0.0.1,{port};User ID=x;Password={TestSecrets.Password};Encrypt=False;Connect Timeout=2"),
            RowsPerScenario = 1, ConnectAttempts = 2, RetryDelay = TimeSpan.FromMilliseconds(10), MaxRetryDelay = TimeSpan.FromMilliseconds(10),
        };
        var result = await WorkloadRunner.RunAsync(options, CancellationToken.None);

        Assert.Equal(WorkloadOutcome.Failed, result.Outcome);
        Assert.Contains($"server 127.0.0.1,{port} unreachable after 2 attempt(s)", result.Problem, StringComparison.Ordinal);
        Assert.DoesNotContain("Password", result.Problem, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task An_error_retrying_cannot_fix_fails_the_run_with_the_servers_message()
    {
        await using var server = new ScriptedSqlServer();
        server.FailNext(1, 262, "CREATE DATABASE");
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit), CancellationToken.None);

        Assert.Equal(WorkloadOutcome.Failed, result.Outcome);
        Assert.Contains("SQL error 262", result.Problem, StringComparison.Ordinal);
        Assert.Equal(0, server.RowsInserted);
    }

    [Fact]
    public async Task Cancelling_stops_a_hanging_statement_within_seconds_and_returns_what_ran()
    {
        await using var server = new ScriptedSqlServer();
        server.Hang(TimeSpan.FromMinutes(5), "INSERT dbo.WorkloadRows");
        using var cts = new CancellationTokenSource();
        var run = WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Batched, WorkloadScenario.Autocommit) with { RowsPerScenario = null, Duration = TimeSpan.FromHours(1) }, cts.Token);
        await server.Server.WaitForRequestAsync(r => r.Text.StartsWith("INSERT", StringComparison.Ordinal), TimeSpan.FromSeconds(30));

        await cts.CancelAsync();
        var result = await run.WaitAsync(TimeSpan.FromSeconds(15));

        Assert.Equal(WorkloadOutcome.Cancelled, result.Outcome);
        var s = Assert.Single(result.Scenarios); // the second scenario never starts
        Assert.Equal((WorkloadOutcome.Cancelled, 0L, 0L), (s.Outcome, s.Commits, s.Rows));
    }

    [Fact]
    public async Task The_duration_ends_each_scenario()
    {
        var time = new ManualTimeProvider();
        await using var server = new ScriptedSqlServer();
        var run = WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit) with { RowsPerScenario = null, Duration = TimeSpan.FromMinutes(2), Time = time }, CancellationToken.None);
        await server.Server.WaitForRequestAsync(r => r.Text.StartsWith("INSERT", StringComparison.Ordinal) && server.RowsInserted >= 5, TimeSpan.FromSeconds(30));

        time.Advance(TimeSpan.FromMinutes(2));
        var result = await run.WaitAsync(TimeSpan.FromSeconds(15));

        var s = Assert.Single(result.Scenarios);
        Assert.Equal(WorkloadOutcome.Completed, s.Outcome);
        Assert.Equal(TimeSpan.FromMinutes(2), s.Elapsed);
        Assert.True(s.Rows >= 5, $"{s.Rows} rows");
        Assert.Equal(server.RowsInserted, s.Rows);
    }

    [Fact]
    public async Task Several_sessions_share_the_rows_each_on_its_own_connection()
    {
        await using var server = new ScriptedSqlServer();
        var result = await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit) with { Sessions = 3, RowsPerScenario = 30 }, CancellationToken.None);

        Assert.Equal(30, result.Rows);
        Assert.Equal(1 + 3, server.Server.Logins.Count(l => l.Database == Db)); // the setup's, then one per session
        var inserts = server.Server.Requests.Where(r => r.Text.StartsWith("INSERT", StringComparison.Ordinal)).ToList();
        Assert.All(inserts, r => Assert.InRange((int)r.Parameter("session")!, 1, 3));
        // A session sends its rows on its own connection.
        Assert.All(inserts.GroupBy(r => r.ConnectionId), g => Assert.Single(g.Select(r => r.Parameter("session")).Distinct()));
        Assert.Equal(30, server.RowsInserted);
    }

    [Fact]
    public async Task The_tables_are_emptied_at_start_and_whenever_they_hold_the_rows_kept()
    {
        await using var server = new ScriptedSqlServer();
        await WorkloadRunner.RunAsync(Options(server, WorkloadScenario.Autocommit) with { RowsPerScenario = 25, MaxRowsKept = 10 }, CancellationToken.None);

        var words = server.Server.Requests.Where(r => r.Login.Database == Db)
            .Select(r => r.Text.StartsWith("TRUNCATE", StringComparison.Ordinal) ? "TRUNCATE" : Word(r)).Where(w => w is "TRUNCATE" or "INSERT").ToList();
        List<string> expected = ["TRUNCATE", .. Enumerable.Repeat("INSERT", 10), "TRUNCATE", .. Enumerable.Repeat("INSERT", 10), "TRUNCATE", .. Enumerable.Repeat("INSERT", 5)];
        Assert.Equal(expected, words);
    }

    [Fact]
    public void Options_name_the_option_that_is_wrong()
    {
        var problems = new WorkloadOptions { Server = SqlServerDataSource.FromConnectionString("x", "Server=x"), Database = "tempdb", Scenarios = [WorkloadScenario.Autocommit], BatchSize = 5, Sessions = 0 }.Validate();

        Assert.Contains(problems, p => p.StartsWith("--database tempdb is a system database", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.StartsWith("--batch-size applies to", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.StartsWith("--sessions must be 1 to 256", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.StartsWith("--duration is missing", StringComparison.Ordinal));
    }
}

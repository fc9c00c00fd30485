using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Tests.Sessions;

public sealed class EventSessionManagerTests
{
    private static SqlServerInstanceOptions Options(Action<SqlServerInstanceOptions>? configure = null)
    {
        var o = new SqlServerInstanceOptions { Name = "prod1", SessionName = "lfm_test", MaxMemoryKb = 2048, MaxDispatchLatencySeconds = 3 };
        configure?.Invoke(o);
        return o;
    }

    private static async Task<(SessionAction Action, string? Ddl)> EnsureStreamSession(XeScriptedServer server, SqlServerInstanceOptions options)
    {
        var manager = new EventSessionManager(options);
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        var capabilities = await manager.ReadCapabilitiesAsync(connection, CancellationToken.None);
        var databases = await manager.ResolveDatabasesAsync(connection, CancellationToken.None);
        var action = await manager.EnsureAsync(connection, manager.SessionName, () => manager.BuildStreamSessionDdl(capabilities, databases), CancellationToken.None);
        return (action, server.StatementsWith("CREATE EVENT SESSION").SingleOrDefault());
    }

    [Fact]
    public async Task An_absent_session_is_created_with_the_looked_up_WRITELOG_key_database_ids_and_safe_options_then_started()
    {
        await using var server = new XeScriptedServer();
        var (action, ddl) = await EnsureStreamSession(server, Options(o => o.IncludeDatabases = ["sales"]));

        Assert.Equal(SessionAction.Created, action);
        Assert.NotNull(ddl);
        Assert.StartsWith("CREATE EVENT SESSION [lfm_test] ON SERVER", ddl, StringComparison.Ordinal);
        Assert.Contains("ADD EVENT sqlserver.log_flush_start (ACTION (package0.event_sequence) WHERE ([database_id] = (5)))", ddl, StringComparison.Ordinal);
        Assert.Contains("ADD EVENT sqlserver.log_flush_complete (ACTION (package0.event_sequence) WHERE ([database_id] = (5)))", ddl, StringComparison.Ordinal);
        Assert.Contains("ADD EVENT sqlos.wait_completed (ACTION (sqlserver.database_id, sqlserver.client_app_name, sqlserver.query_hash, package0.event_sequence) WHERE (([wait_type] = (190)) AND ([sqlserver].[database_id] = (5))))", ddl, StringComparison.Ordinal);
        Assert.Contains("MAX_MEMORY = 2048 KB", ddl, StringComparison.Ordinal);
        Assert.Contains("EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS", ddl, StringComparison.Ordinal);
        Assert.Contains("MAX_DISPATCH_LATENCY = 3 SECONDS", ddl, StringComparison.Ordinal);
        Assert.Contains("STARTUP_STATE = OFF", ddl, StringComparison.Ordinal);
        Assert.DoesNotContain("NO_EVENT_LOSS", ddl.Replace("ALLOW_SINGLE_EVENT_LOSS", "", StringComparison.Ordinal), StringComparison.Ordinal);
        Assert.DoesNotContain("182", ddl, StringComparison.Ordinal);
        Assert.DoesNotContain("sales", ddl, StringComparison.Ordinal); // names are matched in the monitor, never in DDL

        var lookup = server.Server.Requests.Single(r => r.Text.Contains("FROM sys.databases", StringComparison.Ordinal));
        Assert.Empty(lookup.Parameters); // every database is read and the names matched here: a list of any length works
        Assert.Equal(["ALTER EVENT SESSION [lfm_test] ON SERVER STATE = START"], server.StatementsWith("ALTER EVENT SESSION"));
        Assert.Equal((true, true), server.Session("lfm_test"));
    }

    [Fact]
    public async Task The_client_app_name_action_goes_on_the_wait_event_only_and_only_when_the_catalog_has_it()
    {
        await using var server = new XeScriptedServer();
        var (_, with) = await EnsureStreamSession(server, Options(o => o.IncludeDatabases = ["sales"]));
        await using var without = new XeScriptedServer();
        without.Objects.RemoveAll(o => o.Name == "client_app_name");
        var (_, none) = await EnsureStreamSession(without, Options(o => o.IncludeDatabases = ["sales"]));

        Assert.NotNull(with);
        Assert.NotNull(none);
        Assert.Single(System.Text.RegularExpressions.Regex.Matches(with, "client_app_name"));
        Assert.Contains("ADD EVENT sqlos.wait_completed (ACTION (sqlserver.database_id, sqlserver.client_app_name, sqlserver.query_hash, package0.event_sequence)", with, StringComparison.Ordinal);
        Assert.DoesNotContain("client_app_name", none, StringComparison.Ordinal);
        Assert.Contains("ADD EVENT sqlos.wait_completed (ACTION (sqlserver.database_id, sqlserver.query_hash, package0.event_sequence)", none, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_query_hash_action_goes_on_the_wait_event_only_and_only_when_the_catalog_has_it()
    {
        await using var server = new XeScriptedServer();
        var (_, with) = await EnsureStreamSession(server, Options(o => o.IncludeDatabases = ["sales"]));
        await using var without = new XeScriptedServer();
        without.Objects.RemoveAll(o => o.Name == "query_hash");
        var (_, none) = await EnsureStreamSession(without, Options(o => o.IncludeDatabases = ["sales"]));

        Assert.NotNull(with);
        Assert.NotNull(none);
        // Once, on the wait event: never on the flush events, whose rate is the log's, not the commits'.
        Assert.Single(System.Text.RegularExpressions.Regex.Matches(with, "query_hash"));
        Assert.Contains("ADD EVENT sqlos.wait_completed (ACTION (sqlserver.database_id, sqlserver.client_app_name, sqlserver.query_hash, package0.event_sequence)", with, StringComparison.Ordinal);
        Assert.DoesNotContain("query_hash", none, StringComparison.Ordinal);
        Assert.Contains("ADD EVENT sqlos.wait_completed (ACTION (sqlserver.database_id, sqlserver.client_app_name, package0.event_sequence)", none, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_wait_completed_the_session_uses_wait_info_end_events_and_an_exclude_list_becomes_not_equal_predicates()
    {
        await using var server = new XeScriptedServer();
        server.Objects.RemoveAll(o => o.Name == "wait_completed");
        server.WriteLogKeys.Clear();
        server.WriteLogKeys.AddRange([66, 67]);
        var (_, ddl) = await EnsureStreamSession(server, Options(o => o.ExcludeDatabases = ["hr"]));

        Assert.NotNull(ddl);
        Assert.Contains("ADD EVENT sqlos.wait_info (ACTION (sqlserver.database_id, sqlserver.client_app_name, sqlserver.query_hash, package0.event_sequence) WHERE (([wait_type] = (66) OR [wait_type] = (67)) AND [opcode] = (1) AND (([sqlserver].[database_id] = (2) OR [sqlserver].[database_id] > (4)) AND [sqlserver].[database_id] <> (6))))", ddl, StringComparison.Ordinal);
        Assert.Contains("WHERE (([database_id] = (2) OR [database_id] > (4)) AND [database_id] <> (6))", ddl, StringComparison.Ordinal);
        Assert.DoesNotContain("wait_completed", ddl, StringComparison.Ordinal);
    }

    [Fact]
    public async Task HADR_SYNC_COMMIT_is_collected_with_WRITELOG_by_the_key_the_server_gives_it()
    {
        await using var server = new XeScriptedServer();
        server.HadrSyncCommitKeys.Add(838);
        var manager = new EventSessionManager(Options(o => o.IncludeDatabases = ["sales"]));
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        var capabilities = await manager.ReadCapabilitiesAsync(connection, CancellationToken.None);
        var (_, ddl) = await EnsureStreamSession(server, Options(o => o.IncludeDatabases = ["sales"]));

        Assert.Equal([838L], capabilities.HadrSyncCommitKeys);
        Assert.Equal([190L], capabilities.WriteLogKeys);
        Assert.Contains(server.Server.Requests, r => r.Text.Contains("v.map_value = N'HADR_SYNC_COMMIT'", StringComparison.Ordinal));
        Assert.NotNull(ddl);
        Assert.Contains("ADD EVENT sqlos.wait_completed (ACTION (sqlserver.database_id, sqlserver.client_app_name, sqlserver.query_hash, package0.event_sequence) WHERE (([wait_type] = (190) OR [wait_type] = (838)) AND ([sqlserver].[database_id] = (5))))", ddl, StringComparison.Ordinal);
    }

    [Fact]
    public async Task LOGBUFFER_and_the_log_rate_governors_waits_are_collected_by_the_keys_the_server_gives_them()
    {
        await using var server = new XeScriptedServer();
        server.HadrSyncCommitKeys.Add(838);
        server.LogWaitKeys.AddRange([172, 1021, 1022]); // made-up numbers: the monitor never assumes them
        var manager = new EventSessionManager(Options(o => o.IncludeDatabases = ["sales"]));
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        var capabilities = await manager.ReadCapabilitiesAsync(connection, CancellationToken.None);
        var (_, ddl) = await EnsureStreamSession(server, Options(o => o.IncludeDatabases = ["sales"]));

        Assert.Equal([172L, 1021L, 1022L], capabilities.LogWaitKeys);
        var lookup = server.Server.Requests.First(r => r.Text.Contains("N'LOGBUFFER'", StringComparison.Ordinal));
        Assert.Contains("N'LOG_RATE_GOVERNOR', N'POOL_LOG_RATE_GOVERNOR', N'INSTANCE_LOG_RATE_GOVERNOR'", lookup.Text, StringComparison.Ordinal);
        Assert.Contains("LIKE N'RBIO[_]RG[_]%'", lookup.Text, StringComparison.Ordinal);
        Assert.NotNull(ddl);
        Assert.Contains("WHERE (([wait_type] = (190) OR [wait_type] = (838) OR [wait_type] = (172) OR [wait_type] = (1021) OR [wait_type] = (1022)) AND ([sqlserver].[database_id] = (5)))", ddl, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_server_without_HADR_SYNC_COMMIT_in_its_map_still_collects_WRITELOG()
    {
        await using var server = new XeScriptedServer(); // no HADR_SYNC_COMMIT key
        var (_, ddl) = await EnsureStreamSession(server, Options(o => o.IncludeDatabases = ["sales"]));

        Assert.NotNull(ddl);
        Assert.Contains("WHERE (([wait_type] = (190)) AND ([sqlserver].[database_id] = (5)))", ddl, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_a_WRITELOG_key_or_log_flush_complete_only_what_exists_is_added()
    {
        await using var server = new XeScriptedServer();
        server.WriteLogKeys.Clear();
        server.Objects.RemoveAll(o => o.Name == "log_flush_complete");
        var (_, ddl) = await EnsureStreamSession(server, Options());

        Assert.NotNull(ddl);
        Assert.Contains("ADD EVENT sqlserver.log_flush_start (ACTION (package0.event_sequence) WHERE ([database_id] = (2) OR [database_id] > (4)))", ddl, StringComparison.Ordinal);
        Assert.DoesNotContain("log_flush_complete", ddl, StringComparison.Ordinal);
        Assert.DoesNotContain("wait_", ddl, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(5, "sales_copy", "database_id 5 is listed twice (sales, sales_copy)")]
    [InlineData(-3, "ghost", "database_id -3 (ghost) is not one SQL Server assigns (0 to 32767)")]
    [InlineData(40000, "ghost", "database_id 40000 (ghost) is not one SQL Server assigns (0 to 32767)")]
    public async Task A_database_list_no_server_gives_is_a_named_protocol_failure_not_a_crash(int id, string name, string expected)
    {
        // Issue 31 item 6: a broken or hostile server listed an id twice or out of range; ToDictionary threw and the
        // stream reported "a bug, please report it". Every configuration path reads the list: all, include, exclude.
        foreach (var configure in new Action<SqlServerInstanceOptions>?[] { null, o => o.IncludeDatabases = ["sales", name], o => o.ExcludeDatabases = ["hr"] })
        {
            await using var server = new XeScriptedServer();
            server.HostileDatabases.Add((id, name));
            var manager = new EventSessionManager(Options(configure));
            await using var connection = new SqlConnection(server.ConnectionString());
            await connection.OpenAsync();

            var e = await Assert.ThrowsAsync<Core.Signals.StatementAnswerException>(() => manager.ResolveDatabasesAsync(connection, CancellationToken.None));

            Assert.Contains("sys.databases", e.Message, StringComparison.Ordinal);
            Assert.Contains(expected, e.Message, StringComparison.Ordinal);
            Assert.Equal((LogFlushMonitor.SqlServer.Connections.SqlErrorKinds.Protocol, LogFlushMonitor.SqlServer.Resilience.FailureClass.Persistent), (LogFlushMonitor.SqlServer.Resilience.FailureClassifier.Classify(e).Kind, LogFlushMonitor.SqlServer.Resilience.FailureClassifier.Classify(e).Class));
        }
    }

    [Fact]
    public async Task An_include_list_that_matches_nothing_watches_nothing_and_says_so()
    {
        await using var server = new XeScriptedServer();
        var log = new CapturingLogger();
        var manager = new EventSessionManager(Options(o => o.IncludeDatabases = ["not_there"]), log);
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        var selection = await manager.ResolveDatabasesAsync(connection, CancellationToken.None);

        Assert.Equal("([database_id] = (0))", selection.Predicate("[database_id]")); // never silently everything
        Assert.Contains(log.Lines, l => l.EventId == 5107 && l.Message.Contains("prod1", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_running_session_is_left_alone_a_stopped_one_is_started_and_a_dropped_one_is_created_again()
    {
        await using var server = new XeScriptedServer();
        server.SetSession("lfm_test", defined: true, running: true);
        Assert.Equal(SessionAction.None, (await EnsureStreamSession(server, Options())).Action);
        Assert.Empty(server.StatementsWith("EVENT SESSION"));

        server.SetSession("lfm_test", defined: true, running: false); // a DBA stopped it
        Assert.Equal(SessionAction.Started, (await EnsureStreamSession(server, Options())).Action);
        Assert.Empty(server.StatementsWith("CREATE EVENT SESSION"));
        Assert.Equal((true, true), server.Session("lfm_test"));

        server.SetSession("lfm_test", defined: false, running: false); // a DBA dropped it
        Assert.Equal(SessionAction.Created, (await EnsureStreamSession(server, Options())).Action);
        Assert.Equal((true, true), server.Session("lfm_test"));
    }

    [Fact]
    public async Task A_session_the_catalog_hides_but_that_exists_and_runs_is_used_as_it_is()
    {
        await using var server = new XeScriptedServer { HideSessions = true };
        server.SetSession("lfm_test", defined: true, running: true);

        var (action, _) = await EnsureStreamSession(server, Options());

        Assert.Equal(SessionAction.None, action); // 25631 on CREATE and 25705 on START are "already there", not failures
        Assert.Single(server.StatementsWith("CREATE EVENT SESSION"));
        Assert.Single(server.StatementsWith("STATE = START"));
        Assert.Equal((true, true), server.Session("lfm_test"));
    }

    [Fact]
    public async Task Azure_uses_a_database_scoped_session_without_a_database_predicate()
    {
        await using var server = new XeScriptedServer();
        var manager = new EventSessionManager(Options(o => o.Azure = true));
        var ddl = manager.BuildStreamSessionDdl(
            new XeCapabilities { HasFlushStart = true, FlushStartHasDatabaseId = true, HasEventSequenceAction = true, HasDatabaseIdAction = true, WaitEvent = "sqlos.wait_completed", WriteLogKeys = [190] },
            new DatabaseSelection(DatabaseFilterKind.Include, [5], new Dictionary<int, string> { [5] = "sales" }));

        Assert.StartsWith("CREATE EVENT SESSION [lfm_test] ON DATABASE", ddl, StringComparison.Ordinal);
        Assert.DoesNotContain("database_id] =", ddl, StringComparison.Ordinal);
        Assert.Contains("([wait_type] = (190))", ddl, StringComparison.Ordinal);

        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        await manager.EnsureAsync(connection, manager.SessionName, () => ddl, CancellationToken.None);
        Assert.Contains(server.Statements, s => s.Contains("sys.database_event_sessions", StringComparison.Ordinal));
        Assert.Equal(["ALTER EVENT SESSION [lfm_test] ON DATABASE STATE = START"], server.StatementsWith("ALTER EVENT SESSION"));
    }

    [Theory]
    [InlineData("x]; DROP DATABASE sales; --")]
    [InlineData("lfm'")]
    [InlineData("")]
    [InlineData("a b")]
    [InlineData("名前")]
    public void Hostile_or_invalid_session_names_are_rejected_before_any_statement(string name)
    {
        var e = Assert.Throws<ArgumentException>(() => new EventSessionManager(Options(o => o.SessionName = name)));
        Assert.Contains("SessionName", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(name.Length > 0 ? name : "\u0001", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("LogFlushMonitor", "[LogFlushMonitor]")]
    [InlineData("lfm-prod_2", "[lfm-prod_2]")]
    public void Valid_names_are_bracket_quoted(string name, string quoted) => Assert.Equal(quoted, XeSessionName.Quote(name));

    [Fact]
    public async Task Shutdown_stops_the_session_or_drops_it_when_asked()
    {
        await using var server = new XeScriptedServer();
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        server.SetSession("lfm_test", defined: true, running: true);
        await new EventSessionManager(Options()).StopAsync(connection, "lfm_test", CancellationToken.None);
        Assert.Equal((true, false), server.Session("lfm_test"));
        Assert.Equal(["ALTER EVENT SESSION [lfm_test] ON SERVER STATE = STOP"], server.StatementsWith("ALTER EVENT SESSION"));

        await new EventSessionManager(Options(o => o.DropSessionOnStop = true)).StopAsync(connection, "lfm_test", CancellationToken.None);
        Assert.Equal((false, false), server.Session("lfm_test"));
        Assert.Equal(["DROP EVENT SESSION [lfm_test] ON SERVER"], server.StatementsWith("DROP EVENT SESSION"));
    }

    [Fact]
    public async Task Duration_units_come_from_the_catalog_descriptions_and_are_milliseconds_when_they_name_none()
    {
        await using var server = new XeScriptedServer();
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();
        var capabilities = await new EventSessionManager(Options()).ReadCapabilitiesAsync(connection, CancellationToken.None);
        Assert.Equal(DurationUnit.Milliseconds, capabilities.Units.FlushComplete); // "Duration of the flush in milliseconds"
        Assert.Equal(DurationUnit.Milliseconds, capabilities.Units.WaitCompleted); // "Duration of the wait": no unit, the default
        Assert.Equal(DurationUnit.Milliseconds, capabilities.Units.WaitInfo);
        Assert.Equal("sqlos.wait_completed", capabilities.WaitEvent);
        Assert.Equal([190L], capabilities.WriteLogKeys);

        // A description that names another unit wins over the default.
        server.Columns.RemoveAll(c => c.Event == "wait_completed" && c.Column == "duration");
        server.Columns.Add(("wait_completed", "duration", "Duration of the wait in microseconds"));
        capabilities = await new EventSessionManager(Options()).ReadCapabilitiesAsync(connection, CancellationToken.None);
        Assert.Equal(DurationUnit.Microseconds, capabilities.Units.WaitCompleted);
    }
}

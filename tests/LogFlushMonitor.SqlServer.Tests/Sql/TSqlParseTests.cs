using System.Reflection;
using System.Text.RegularExpressions;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Setup;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.Workload;
using Microsoft.SqlServer.TransactSql.ScriptDom;

namespace LogFlushMonitor.SqlServer.Tests.Sql;

/// <summary>
/// Every T-SQL text the product sends parses with SQL Server 2022's grammar (ScriptDom TSql160Parser): the
/// statements of Sql/ (found by reflection, so a new one cannot escape), the session DDL the builders produce
/// (server and Azure scope, hostile names), the setup-sql scripts and deploy/sql/*.sql. The scripted TDS server
/// accepts any text, so without this a typo would first show on a real server.
/// </summary>
public sealed partial class TSqlParseTests
{
    /// <summary>Every static method of Sql/ that returns T-SQL; a new one must be added here and parsed below.</summary>
    private static readonly string[] StatementBuilders =
    [
        "WorkloadSql.CreateDatabase", "WorkloadSql.DropDatabase", "WorkloadSql.SetDelayedDurability", "WorkloadSql.SetSimpleRecovery",
        "XeSql.CreateSession", "XeSql.DropSession", "XeSql.HistogramTarget", "XeSql.StartSession", "XeSql.StopSession",
    ];

    public static TheoryData<string> SqlConstants()
    {
        var data = new TheoryData<string>();
        foreach (var field in SqlTypes().SelectMany(t => t.GetFields(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static))
                     .Where(f => f is { IsLiteral: true } && f.FieldType == typeof(string)))
        {
            data.Add($"{field.DeclaringType!.Name}.{field.Name}");
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(SqlConstants))]
    public void Every_statement_in_Sql_parses_with_its_lists_expanded_as_Dapper_does(string member)
    {
        var (typeName, fieldName) = (member.Split('.')[0], member.Split('.')[1]);
        var text = (string)SqlTypes().Single(t => t.Name == typeName).GetField(fieldName, BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static)!.GetRawConstantValue()!;

        foreach (var expanded in ExpandLists(text))
        {
            AssertParses(expanded, member);
        }
    }

    /// <summary>Every statement of every signal, for each server a signal tells apart (versions, Azure editions).</summary>
    public static TheoryData<string> SignalStatements()
    {
        var data = new TheoryData<string>();
        foreach (var (signal, server) in SignalStatementCases())
        {
            foreach (var statement in signal.Statements(server))
            {
                data.Add($"{signal.Name}/{statement.Name}/{server}");
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(SignalStatements))]
    public void Every_statement_of_every_signal_parses(string member)
    {
        var (signal, server) = SignalStatementCases().First(c => member.StartsWith(c.Signal.Name + "/", StringComparison.Ordinal) && member.EndsWith("/" + c.Server, StringComparison.Ordinal));
        var name = member.Split('/')[1];
        foreach (var statement in signal.Statements(server).Where(s => s.Name == name))
        {
            AssertParses(statement.Text, member);
        }
    }

    [Theory]
    [InlineData("", true)]
    [InlineData("[sales].", true)]
    [InlineData("[x]]; DROP TABLE t;--].", false)]
    public void Query_stores_per_database_statements_parse_with_and_without_text(string prefix, bool text)
    {
        AssertParses(Core.Signals.QueryStoreSignal.Options(prefix).Text, "query_store_options " + prefix);
        AssertParses(Core.Signals.QueryStoreSignal.Stats(prefix, text).Text, "query_store_statements " + prefix);
    }

    private static IEnumerable<(Core.Signals.Signal Signal, Core.Signals.ServerProfile Server)> SignalStatementCases() =>
        from signal in Core.Signals.SignalRegistry.All
        from server in new Core.Signals.ServerProfile[] { new(false, 12), new(false, 16), new(false, 16, 8), new(true, 12, 5) }
        select (signal, server);

    [Fact]
    public void The_Sql_classes_hold_statements_and_the_builders_listed_here_and_nothing_else()
    {
        Assert.True(SqlConstants().Count >= 20, "reflection found too few statements: did the Sql classes move?");
        var builders = SqlTypes()
            .Where(t => t != typeof(SqlIdentifier)) // quoting, not statements
            .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.DeclaredOnly))
            .Where(m => m.ReturnType == typeof(string) && !m.IsSpecialName && !m.IsPrivate && m.GetCustomAttribute<System.Runtime.CompilerServices.CompilerGeneratedAttribute>() is null)
            .Select(m => $"{m.DeclaringType!.Name}.{m.Name}")
            .Distinct()
            .Order(StringComparer.Ordinal);
        Assert.Equal(StatementBuilders.Order(StringComparer.Ordinal), builders);
    }

    public static TheoryData<bool, string, string> SessionCases() => new()
    {
        { false, "LogFlushMonitor", "modern" },
        { true, "LogFlushMonitor", "modern" },
        { false, "lfm-prod_01", "pre-2016" },
        { true, "lfm-prod_01", "pre-2016" },
        { false, new string('x', XeSessionName.MaxLength), "modern" },
        { false, "--", "pre-2016" },
        { false, "0", "modern" },
    };

    [Theory]
    [MemberData(nameof(SessionCases))]
    public void The_session_DDL_the_builders_produce_parses(bool azure, string sessionName, string catalog)
    {
        var manager = new EventSessionManager(new SqlServerInstanceOptions { Name = "prod-1", SessionName = sessionName, Azure = azure });
        var capabilities = catalog == "modern"
            ? new XeCapabilities
            {
                HasFlushStart = true, HasFlushComplete = true, FlushStartHasDatabaseId = true, FlushStartHasWriteSize = true,
                FlushCompleteHasDatabaseId = true, WaitEvent = "sqlos.wait_completed", WriteLogKeys = [182, 183],
                HasDatabaseIdAction = true, HasEventSequenceAction = true, HasHistogramTarget = true,
            }
            : new XeCapabilities
            {
                HasFlushStart = true, FlushStartHasWriteSize = true, WaitEvent = "sqlos.wait_info", WriteLogKeys = [181],
                HasDatabaseIdAction = true, HasHistogramTarget = true,
            };
        // Database names never enter DDL (ids do); hostile ones prove it.
        var names = new Dictionary<int, string> { [5] = "sales]; DROP DATABASE [x", [6] = "o'brien -- \"q\"", [7] = "名前" };
        DatabaseSelection[] selections =
        [
            new(DatabaseFilterKind.AllUser, [], names),
            new(DatabaseFilterKind.Include, [5, 6, 7], names),
            new(DatabaseFilterKind.Include, [], names),
            new(DatabaseFilterKind.Exclude, [6], names),
        ];
        var quoted = XeSessionName.Quote(sessionName);
        var histogramName = sessionName.Length < XeSessionName.MaxLength - 2 ? sessionName + "_h" : sessionName;

        foreach (var selection in selections)
        {
            var stream = manager.BuildStreamSessionDdl(capabilities, selection);
            AssertParses(stream, "stream session");
            Assert.DoesNotContain("sales]", stream, StringComparison.Ordinal);
            AssertParses(manager.BuildHistogramSessionDdl(histogramName, null, selection, 256), "histogram session");
        }

        AssertParses(manager.BuildHistogramSessionDdl(histogramName, 5, null, 1024), "histogram session for one database");
        AssertParses(XeSql.StartSession(quoted, azure), "start");
        AssertParses(XeSql.StopSession(quoted, azure), "stop");
        AssertParses(XeSql.DropSession(quoted, azure), "drop");
    }

    [Theory]
    [InlineData("LogFlushMonitorWorkload")]
    [InlineData("work]; DROP DATABASE [master")]
    [InlineData("o'brien -- \"q\"")]
    [InlineData("名前 load")]
    public void The_workload_database_statements_parse_with_a_hostile_name(string database)
    {
        var statements = new[]
        {
            WorkloadSql.CreateDatabase(database), WorkloadSql.SetSimpleRecovery(database),
            WorkloadSql.SetDelayedDurability(database, forced: true), WorkloadSql.SetDelayedDurability(database, forced: false),
            WorkloadSql.DropDatabase(database),
        };
        var single = AssertParses(WorkloadSql.CreateDatabase("x"), "create database").GetType();
        foreach (var text in statements)
        {
            var fragment = AssertParses(text, "workload database statement");
            // The name stays one identifier: a hostile name adds no statement.
            var expected = Statements(AssertParses(text.Replace(SqlIdentifier.Quote(database, "--database"), "[x]", StringComparison.Ordinal), "plain")).Count();
            Assert.Equal(expected, Statements(fragment).Count());
        }

        Assert.Equal(typeof(TSqlScript), single);
    }

    public static TheoryData<SetupTarget, string> SetupCases()
    {
        var data = new TheoryData<SetupTarget, string>();
        foreach (var target in Enum.GetValues<SetupTarget>())
        {
            foreach (var login in new[] { SetupScripts.DefaultLogin, "monitor]; DROP LOGIN [sa]; --", "o'brien", "Überwachung 名前", "[x]" })
            {
                data.Add(target, login);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(SetupCases))]
    public void The_setup_sql_script_parses_for_every_version_and_a_hostile_login_name(SetupTarget target, string login)
    {
        var script = SetupScripts.Build(target, login);

        var fragment = AssertParses(script, $"setup-sql {target}");
        // The hostile name stays one identifier: no statement appears that the script does not contain for the default login.
        var expected = Statements(AssertParses(SetupScripts.Build(target), "default script")).Select(s => s.GetType());
        Assert.Equal(expected, Statements(fragment).Select(s => s.GetType()));
    }

    [Fact]
    public void The_scripts_in_deploy_sql_parse()
    {
        var files = Directory.GetFiles(Path.Combine(RepositoryRoot(), "deploy", "sql"), "*.sql");

        Assert.NotEmpty(files);
        foreach (var file in files)
        {
            AssertParses(File.ReadAllText(file), Path.GetFileName(file));
        }
    }

    [Theory]
    [InlineData("SELEC name FROM sys.databases")]
    [InlineData("SELECT name FROM sys.databases WHER database_id = 2")]
    [InlineData("ALTER EVENT SESSION [x] ON SERVER STATE = STRT")]
    [InlineData("SELECT name FROM sys.databases WHERE name IN @names")] // Dapper's list syntax, not expanded
    public void A_typo_is_reported_as_a_parse_error(string broken)
    {
        Assert.NotEmpty(Parse(broken));
    }

    [Fact]
    public void A_typo_in_a_real_statement_is_caught()
    {
        Assert.NotEmpty(Parse(Core.Signals.WaitStatsSignal.ServerStatement.Text.Replace("FROM", "FORM", StringComparison.Ordinal)));
        Assert.NotEmpty(Parse(XeSql.StartSession("[LogFlushMonitor]", azure: false).Replace("STATE =", "STATE ==", StringComparison.Ordinal)));
    }

    [Fact]
    public void No_T_SQL_statement_is_written_outside_Sql_and_Setup_and_the_signals()
    {
        // The scan's own pattern: statements match, permission names do not.
        Assert.Matches(StatementLike(), "var sql = \"SELECT name FROM sys.databases\";");
        Assert.Matches(StatementLike(), "Run($\"ALTER EVENT SESSION {quoted} ON SERVER STATE = START\");");
        Assert.DoesNotMatch(StatementLike(), "Has(\"ALTER ANY DATABASE EVENT SESSION\", \"purpose\")");
        // A signal's statements are its own (Core/Signals, one file each); the session DDL and check's are Sql/'s.
        var source = Path.Combine(RepositoryRoot(), "src");
        var offenders = new[] { "LogFlushMonitor.SqlServer", "LogFlushMonitor.Core" }
            .SelectMany(p => Directory.GetFiles(Path.Combine(source, p), "*.cs", SearchOption.AllDirectories))
            .Where(f => !InFolder(f, "Sql") && !InFolder(f, "Setup") && !InFolder(f, "Signals") && !InFolder(f, "obj") && !InFolder(f, "bin"))
            .SelectMany(f => File.ReadLines(f).Select((line, i) => (File: f, Line: i + 1, Text: line)))
            .Where(l => StatementLike().IsMatch(l.Text) && !l.Text.TrimStart().StartsWith("///", StringComparison.Ordinal))
            .Select(l => $"{Path.GetRelativePath(source, l.File)}:{l.Line}: {l.Text.Trim()}")
            .ToList();

        Assert.True(offenders.Count == 0, "T-SQL belongs in a signal's file (Core/Signals) or in Sql/ (one place per statement, parsed by this test):\n" + string.Join("\n", offenders));
    }

    /// <summary>
    /// Dapper turns <c>IN @list</c> into <c>IN (@list1, @list2, …)</c>, and an empty list into
    /// <c>IN (SELECT @list WHERE 1 = 0)</c>: both forms are what the server parses.
    /// </summary>
    private static IEnumerable<string> ExpandLists(string text)
    {
        var lists = DapperList();
        yield return lists.Replace(text, m => $"IN (@{m.Groups[1].Value}1, @{m.Groups[1].Value}2, @{m.Groups[1].Value}3)");
        if (lists.IsMatch(text))
        {
            yield return lists.Replace(text, m => $"IN (SELECT @{m.Groups[1].Value} WHERE 1 = 0)");
        }
    }

    private static TSqlFragment AssertParses(string text, string what)
    {
        var parser = new TSql160Parser(initialQuotedIdentifiers: true);
        var fragment = parser.Parse(new StringReader(text), out var errors);
        Assert.True(errors.Count == 0,
            $"{what} does not parse:\n{string.Join("\n", errors.Select(e => $"line {e.Line}, column {e.Column}: {e.Message}"))}\n--- text ---\n{text}");
        Assert.NotEmpty(Statements(fragment));
        return fragment;
    }

    private static IList<ParseError> Parse(string text)
    {
        new TSql160Parser(initialQuotedIdentifiers: true).Parse(new StringReader(text), out var errors);
        return errors;
    }

    private static IEnumerable<TSqlStatement> Statements(TSqlFragment fragment) =>
        fragment is TSqlScript script ? script.Batches.SelectMany(b => b.Statements) : [];

    /// <summary>The static classes of the SQL Server source's Sql/ folder, and the workload's statements (a project of its own).</summary>
    private static IEnumerable<Type> SqlTypes() =>
        typeof(SqlIdentifier).Assembly.GetTypes().Where(t => t.Namespace == typeof(SqlIdentifier).Namespace && t is { IsClass: true, IsAbstract: true, IsSealed: true })
            .Append(typeof(WorkloadSql));

    private static bool InFolder(string file, string folder) =>
        file.Split(Path.DirectorySeparatorChar).Contains(folder, StringComparer.Ordinal);

    private static string RepositoryRoot()
    {
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (dir is not null && !File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
        {
            dir = dir.Parent;
        }

        return dir?.FullName ?? throw new InvalidOperationException($"LogFlushMonitor.sln not found above {AppContext.BaseDirectory}.");
    }

    [GeneratedRegex(@"\bIN\s+@(\w+)", RegexOptions.IgnoreCase)]
    private static partial Regex DapperList();

    /// <summary>Text that starts a statement in a string (permission names such as "ALTER ANY DATABASE" do not match).</summary>
    [GeneratedRegex("""["{]\s*(SELECT\s|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|DECLARE\s+@|WAITFOR\s|EXEC(UTE)?\s|(CREATE|ALTER|DROP)\s+EVENT\s+SESSION\s*[\[{]|USE\s+\[)|\bFROM\s+sys\.""")]
    private static partial Regex StatementLike();
}

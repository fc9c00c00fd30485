using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

public class SqlIdentifierTests
{
    [Theory]
    [InlineData("x]; DROP TABLE t;--", "[x]]; DROP TABLE t;--]")]
    [InlineData("it's \"quoted\"", "[it's \"quoted\"]")]
    [InlineData("[already]", "[[already]]]")]
    [InlineData("Ünïcödé-数据库", "[Ünïcödé-数据库]")]
    public void Names_are_bracket_quoted_with_closing_brackets_doubled(string name, string quoted) =>
        Assert.Equal(quoted, SqlIdentifier.Quote(name));

    [Theory]
    [InlineData("")]
    [InlineData("a\u0000b")]
    [InlineData("line\nbreak")]
    public void Empty_and_control_characters_are_refused(string name) =>
        Assert.Throws<ArgumentException>(() => SqlIdentifier.Quote(name, "Setting"));

    [Fact]
    public void Length_is_capped_at_128()
    {
        Assert.Equal(130, SqlIdentifier.Quote(new string('a', 128)).Length);
        var e = Assert.Throws<ArgumentException>(() => SqlIdentifier.Quote(new string('a', 129), "Sources:SqlServer:Instances:0:IncludeDatabases:0"));
        Assert.Contains("Sources:SqlServer:Instances:0:IncludeDatabases:0 is 129 characters long", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Literals_double_their_quotes() => Assert.Equal("N'O''Brien'', x'", SqlIdentifier.QuoteLiteral("O'Brien', x"));

    [Fact]
    public async Task Hostile_database_names_never_enter_a_statement()
    {
        string[] hostile = ["x]; DROP TABLE t;--", "o'brien", "Ünïcödé-数据库", new string('z', 128)];
        await using var server = new ScriptedSqlServer();
        foreach (var name in hostile)
        {
            server.AddDatabase(name);
        }

        await using var h = new PollerHarness(server, o => o.IncludeDatabases = [.. hostile]);
        await h.PollAsync();

        // The lists are applied by the monitor to the rows: no name in any text, and none needed as a parameter. The one
        // place a name enters T-SQL, Query Store's three-part names (its views are per database), it is bracket-quoted
        // with ']' doubled, and nothing of it stands outside the brackets.
        Assert.Empty(server.RequestsFor("sys.dm_os_performance_counters").Single().Parameters);
        Assert.All(server.Server.Requests, r => Assert.DoesNotContain("DROP TABLE", hostile.Aggregate(r.Text, (text, name) => text.Replace(SqlIdentifier.Quote(name), "[db]", StringComparison.Ordinal)), StringComparison.Ordinal));
        Assert.Contains(server.Server.Requests, r => r.Text.Contains("FROM [x]]; DROP TABLE t;--].sys.database_query_store_options", StringComparison.Ordinal));
        Assert.Equal(hostile.Order(StringComparer.Ordinal), h.Sink.Values<CounterRow>().Select(c => c.CounterInstance).Where(i => i != "_Total").Distinct().Order(StringComparer.Ordinal));
        Assert.Equal(hostile.Order(StringComparer.Ordinal), h.Sink.Values<FileStatsRow>().Select(f => f.DatabaseName).Order(StringComparer.Ordinal));
    }
}

using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Tests.Sessions;

/// <summary>Issue 23 item 3 for the event session: resolving 2,500 names to ids used to need 2,500 parameters (error 8003).</summary>
public sealed class LongDatabaseListTests
{
    [Fact]
    public async Task An_include_list_of_2500_names_resolves_to_the_ids_that_exist()
    {
        await using var server = new ScriptedSqlServer();
        var options = new SqlServerInstanceOptions
        {
            Name = "prod1",
            IncludeDatabases = [.. Enumerable.Range(0, 2_498).Select(i => $"db_{i:0000}"), "SALES", "msdb"],
        };
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();

        var selection = await new EventSessionManager(options).ResolveDatabasesAsync(connection, CancellationToken.None);

        Assert.Equal(DatabaseFilterKind.Include, selection.Kind);
        Assert.Equal([4, 5], selection.Ids);
        Assert.Equal("(x = (4) OR x = (5))", selection.Predicate("x"));
    }

    [Fact]
    public async Task An_exclude_list_of_2500_names_resolves_too()
    {
        await using var server = new ScriptedSqlServer();
        var options = new SqlServerInstanceOptions { Name = "prod1", ExcludeDatabases = [.. Enumerable.Range(0, 2_499).Select(i => $"db_{i:0000}"), "sales"] };
        await using var connection = new SqlConnection(server.ConnectionString());
        await connection.OpenAsync();

        var selection = await new EventSessionManager(options).ResolveDatabasesAsync(connection, CancellationToken.None);

        Assert.Equal((DatabaseFilterKind.Exclude, 5), (selection.Kind, Assert.Single(selection.Ids)));
        Assert.Equal([2], selection.Names.Keys); // tempdb is all that remains of the user databases
    }
}

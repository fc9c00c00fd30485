using System.Data;
using Dapper;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class RpcTests
{
    [Fact]
    public async Task A_Dapper_parameterised_query_is_recorded_with_statement_declarations_and_values()
    {
        await using var server = new TdsTestServer();
        server.When(r => r.Text.Contains("sys.databases", StringComparison.Ordinal), r =>
            TdsResponse.Rows([TdsColumn.Int("database_id"), TdsColumn.NVarChar("name")], [r.Parameter("id"), "perf"]));
        await using var connection = await Open.ConnectionAsync(server);

        var rows = (await connection.QueryAsync<(int Id, string Name)>(
            "select database_id, name from sys.databases where database_id = @id and name = @name and size > @big and is_read_only = @ro",
            new { id = 5, name = "perf", big = 9_000_000_000L, ro = false })).ToList();

        Assert.Equal([(5, "perf")], rows);
        var request = Assert.Single(server.Requests);
        Assert.Equal(TdsRequestKind.Rpc, request.Kind);
        Assert.Equal("sp_executesql", request.ProcedureName);
        Assert.StartsWith("select database_id, name from sys.databases", request.Text, StringComparison.Ordinal);
        Assert.Contains("@id int", request.ParameterDeclarations, StringComparison.Ordinal);
        Assert.Contains("@big bigint", request.ParameterDeclarations, StringComparison.Ordinal);
        Assert.Equal(5, request.Parameter("@id"));
        Assert.Equal("perf", request.Parameter("name"));
        Assert.Equal(9_000_000_000L, request.Parameter("big"));
        Assert.Equal(false, request.Parameter("ro"));
        Assert.Equal(4, request.Parameters.Count);
    }

    [Fact]
    public async Task SqlClient_typed_parameters_and_nulls_decode_to_their_dotnet_values()
    {
        var blob = Enumerable.Range(0, 9000).Select(i => (byte)i).ToArray();
        var longText = new string('x', 5000);
        var at = new DateTime(2026, 1, 2, 3, 4, 5).AddTicks(1234567);
        await using var server = new TdsTestServer();
        server.Handle(_ => TdsResponse.Empty().RowsAffected(1));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("exec_stuff", connection);
        command.Parameters.Add("@i", SqlDbType.Int).Value = int.MinValue;
        command.Parameters.Add("@l", SqlDbType.BigInt).Value = long.MaxValue;
        command.Parameters.Add("@s", SqlDbType.NVarChar, 50).Value = "héllo";
        command.Parameters.Add("@smax", SqlDbType.NVarChar, -1).Value = longText;
        command.Parameters.Add("@b", SqlDbType.Bit).Value = true;
        command.Parameters.Add("@d2", SqlDbType.DateTime2).Value = at;
        command.Parameters.Add("@bin", SqlDbType.VarBinary, -1).Value = blob;
        command.Parameters.Add("@f", SqlDbType.Float).Value = 2.5;
        command.Parameters.Add("@g", SqlDbType.UniqueIdentifier).Value = new Guid("0f8fad5b-d9cb-469f-a165-70867728950e");
        command.Parameters.Add("@m", SqlDbType.Decimal).Value = -12.345m;
        command.Parameters.Add("@n", SqlDbType.Int).Value = DBNull.Value;
        command.Parameters.Add("@ns", SqlDbType.NVarChar, 10).Value = DBNull.Value;

        Assert.Equal(1, await command.ExecuteNonQueryAsync());

        var p = Assert.Single(server.Requests).Parameters;
        Assert.Equal(int.MinValue, p["@i"]);
        Assert.Equal(long.MaxValue, p["@l"]);
        Assert.Equal("héllo", p["@s"]);
        Assert.Equal(longText, p["@smax"]);
        Assert.Equal(true, p["@b"]);
        Assert.Equal(at, p["@d2"]);
        Assert.Equal(blob, p["@bin"]);
        Assert.Equal(2.5, p["@f"]);
        Assert.Equal(new Guid("0f8fad5b-d9cb-469f-a165-70867728950e"), p["@g"]);
        Assert.Equal(-12.345m, p["@m"]);
        Assert.Null(p["@n"]);
        Assert.Null(p["@ns"]);
    }

    [Fact]
    public async Task A_stored_procedure_call_is_recorded_by_name()
    {
        await using var server = new TdsTestServer();
        server.When(r => r.ProcedureName == "sys.sp_flush_log", _ => TdsResponse.Empty());
        await using var connection = await Open.ConnectionAsync(server);

        await connection.ExecuteAsync("sys.sp_flush_log", commandType: CommandType.StoredProcedure);

        var request = Assert.Single(server.Requests);
        Assert.Equal(TdsRequestKind.Rpc, request.Kind);
        Assert.Equal("sys.sp_flush_log", request.Text);
        Assert.Empty(request.Parameters);
    }

    [Fact]
    public async Task Handlers_see_evolving_state_and_the_first_match_wins()
    {
        var calls = 0;
        await using var server = new TdsTestServer();
        server.When("counter", _ => TdsResponse.Rows([TdsColumn.Int("n")], [Interlocked.Increment(ref calls)]));
        server.When("counter", TdsResponse.Rows([TdsColumn.Int("n")], [-1]));
        await using var connection = await Open.ConnectionAsync(server);

        Assert.Equal(1, await connection.ExecuteScalarAsync<int>("select counter"));
        Assert.Equal(2, await connection.ExecuteScalarAsync<int>("select counter where x = @x", new { x = 1 }));
    }

    [Fact]
    public async Task An_unscripted_statement_fails_loudly_with_error_208_naming_it()
    {
        await using var server = new TdsTestServer();
        await using var connection = await Open.ConnectionAsync(server);

        var error = await Assert.ThrowsAsync<SqlException>(() => connection.ExecuteAsync("select * from nowhere"));

        Assert.Equal(208, error.Number);
        Assert.Contains("select * from nowhere", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_statement_longer_than_4000_characters_arrives_whole()
    {
        var statement = "select n from t where n = @n /*" + new string('-', 6000) + "*/";
        await using var server = new TdsTestServer();
        server.When("select n from t", r => TdsResponse.Rows([TdsColumn.Int("n")], [r.Parameter("n")]));
        await using var connection = await Open.ConnectionAsync(server);

        Assert.Equal(7, await connection.ExecuteScalarAsync<int>(statement, new { n = 7 }));

        Assert.Equal(statement, Assert.Single(server.Requests).Text);
    }

    [Fact]
    public async Task Dapper_parameters_of_other_common_types_arrive_as_the_same_values()
    {
        var at = new DateTime(2026, 11, 22, 12, 30, 15, 500);
        var id = Guid.NewGuid();
        await using var server = new TdsTestServer();
        server.Handle(_ => TdsResponse.Empty());
        await using var connection = await Open.ConnectionAsync(server);

        await connection.ExecuteAsync(
            "update t set x = 1 where at = @at and id = @id and amount = @amount and ratio = @ratio and data = @data and missing = @missing",
            new { at, id, amount = 12.50m, ratio = 0.75, data = new byte[] { 9, 8, 7 }, missing = (int?)null });

        var request = Assert.Single(server.Requests);
        Assert.Equal(at, request.Parameter("at")); // Dapper sends DateTime as datetime (1/300 s), exact here
        Assert.Equal(id, request.Parameter("id"));
        Assert.Equal(12.50m, request.Parameter("amount"));
        Assert.Equal(0.75, request.Parameter("ratio"));
        Assert.Equal(new byte[] { 9, 8, 7 }, request.Parameter("data"));
        Assert.Null(request.Parameter("missing"));
    }
}

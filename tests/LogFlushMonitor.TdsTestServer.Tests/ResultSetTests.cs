using System.Data;
using Dapper;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class ResultSetTests
{
    private static readonly TdsColumn[] AllTypes =
    [
        TdsColumn.NVarChar("name"), TdsColumn.Int("id"), TdsColumn.BigInt("total"), TdsColumn.Float("ratio"),
        TdsColumn.DateTime2("at"), TdsColumn.Bit("flag"), TdsColumn.VarBinaryMax("data"),
    ];

    private static readonly DateTime When = new DateTime(2026, 11, 22, 13, 45, 7, 123, DateTimeKind.Unspecified).AddTicks(4567);

    private static readonly object?[] Full = ["WRITELOG é ✓", -7, 5_000_000_000L, 0.125, When, true, new byte[] { 0, 1, 254, 255 }];

    private static readonly object?[] Nulls = [null, null, null, null, null, null, null];

    private static TdsTestServer ServerWithAllTypes()
    {
        var server = new TdsTestServer();
        server.When("from all_types", TdsResponse.Rows(AllTypes, Full, Nulls));
        return server;
    }

    [Fact]
    public async Task Each_column_type_and_its_null_read_back_exactly_through_a_data_reader()
    {
        await using var server = ServerWithAllTypes();
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("select * from all_types", connection);
        await using var reader = await command.ExecuteReaderAsync();

        Assert.Equal(["nvarchar", "int", "bigint", "float", "datetime2", "bit", "varbinary"],
            Enumerable.Range(0, reader.FieldCount).Select(reader.GetDataTypeName));
        Assert.True(await reader.ReadAsync());
        Assert.Equal("WRITELOG é ✓", reader.GetString(0));
        Assert.Equal(-7, reader.GetInt32(1));
        Assert.Equal(5_000_000_000L, reader.GetInt64(2));
        Assert.Equal(0.125, reader.GetDouble(3));
        Assert.Equal(When, reader.GetDateTime(4));
        Assert.True(reader.GetBoolean(5));
        Assert.Equal(new byte[] { 0, 1, 254, 255 }, (byte[])reader[6]);
        Assert.True(await reader.ReadAsync());
        Assert.All(Enumerable.Range(0, 7), i => Assert.True(reader.IsDBNull(i)));
        Assert.False(await reader.ReadAsync());
    }

    private sealed class AllTypesRow
    {
        public string? Name { get; set; }

        public int? Id { get; set; }

        public long? Total { get; set; }

        public double? Ratio { get; set; }

        public DateTime? At { get; set; }

        public bool? Flag { get; set; }

        public byte[]? Data { get; set; }
    }

    [Fact]
    public async Task Each_column_type_and_its_null_read_back_exactly_through_Dapper()
    {
        await using var server = ServerWithAllTypes();
        await using var connection = await Open.ConnectionAsync(server);

        var rows = (await connection.QueryAsync<AllTypesRow>("select * from all_types")).ToList();

        Assert.Equal(2, rows.Count);
        Assert.Equal("WRITELOG é ✓", rows[0].Name);
        Assert.Equal(-7, rows[0].Id);
        Assert.Equal(5_000_000_000L, rows[0].Total);
        Assert.Equal(0.125, rows[0].Ratio);
        Assert.Equal(When, rows[0].At);
        Assert.True(rows[0].Flag);
        Assert.Equal(new byte[] { 0, 1, 254, 255 }, rows[0].Data);
        Assert.Equivalent(new AllTypesRow(), rows[1]);
    }

    [Fact]
    public async Task Multiple_result_sets_and_row_counts_arrive_in_order()
    {
        await using var server = new TdsTestServer();
        server.When("batch", new TdsResponse()
            .ResultSet([TdsColumn.Int("a")], [1], [2])
            .RowsAffected(5)
            .ResultSet([TdsColumn.NVarChar("b")], ["x"]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("batch", connection);
        await using var reader = await command.ExecuteReaderAsync();

        var first = new List<int>();
        while (await reader.ReadAsync())
        {
            first.Add(reader.GetInt32(0));
        }

        Assert.True(await reader.NextResultAsync());
        Assert.True(await reader.ReadAsync());
        Assert.Equal("x", reader.GetString(0));
        Assert.False(await reader.NextResultAsync());
        Assert.Equal([1, 2], first);
        await reader.CloseAsync();
        Assert.Equal(8, reader.RecordsAffected); // 2 rows selected + 5 affected + 1 row selected
    }

    [Fact]
    public async Task ExecuteNonQuery_returns_the_scripted_rows_affected()
    {
        await using var server = new TdsTestServer();
        server.When("delete", TdsResponse.Empty().RowsAffected(3).RowsAffected(4));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("delete from t", connection);

        Assert.Equal(7, await command.ExecuteNonQueryAsync());
    }

    [Fact]
    public async Task A_varbinary_max_of_several_megabytes_streams_byte_for_byte_with_sequential_access()
    {
        var payload = new byte[5 * 1024 * 1024 + 123];
        new Random(7).NextBytes(payload);
        await using var server = new TdsTestServer();
        server.When("event_stream", TdsResponse.Rows([TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data")], [2, payload], [2, null]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("select type, data from event_stream", connection);
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess);

        Assert.True(await reader.ReadAsync());
        Assert.Equal(2, reader.GetInt32(0));
        using var copy = new MemoryStream();
        await using (var stream = reader.GetStream(1))
        {
            await stream.CopyToAsync(copy, 81920);
        }

        Assert.Equal(payload.Length, copy.Length);
        Assert.True(payload.AsSpan().SequenceEqual(copy.ToArray()));
        Assert.True(await reader.ReadAsync());
        Assert.Equal(2, reader.GetInt32(0));
        Assert.True(await reader.IsDBNullAsync(1));
    }

    [Fact]
    public async Task A_varbinary_max_reads_in_pieces_with_GetBytes()
    {
        var payload = Enumerable.Range(0, 100_000).Select(i => (byte)(i * 31)).ToArray();
        await using var server = new TdsTestServer();
        server.When("blob", TdsResponse.Rows([TdsColumn.VarBinaryMax("data")], [payload]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("blob", connection);
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess);
        Assert.True(await reader.ReadAsync());

        var result = new byte[payload.Length];
        long offset = 0, read;
        while ((read = reader.GetBytes(0, offset, result, (int)offset, Math.Min(7000, result.Length - (int)offset))) > 0)
        {
            offset += read;
        }

        Assert.Equal(payload, result);
    }
}

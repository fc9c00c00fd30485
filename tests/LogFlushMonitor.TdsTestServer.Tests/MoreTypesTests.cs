using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

public sealed class MoreTypesTests
{
    [Fact]
    public async Task Datetime_datetimeoffset_decimal_and_their_nulls_read_back()
    {
        var at = new DateTime(2026, 11, 22, 23, 59, 59, 997);
        var offset = new DateTimeOffset(2026, 11, 22, 10, 0, 0, TimeSpan.FromHours(-5)).AddTicks(1234567);
        await using var server = new TdsTestServer();
        server.When("dmv", TdsResponse.Rows(
            [new TdsColumn("created", TdsType.DateTime), new TdsColumn("at", TdsType.DateTimeOffset), TdsColumn.Decimal("pct", 4), TdsColumn.Decimal("big", 0)],
            [at, offset, -12.3456m, 12345678901234567890123456789m],
            [null, null, null, null]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("dmv", connection);
        await using var reader = await command.ExecuteReaderAsync();

        Assert.Equal(["datetime", "datetimeoffset", "decimal", "decimal"], Enumerable.Range(0, 4).Select(reader.GetDataTypeName));
        Assert.True(await reader.ReadAsync());
        Assert.Equal(at, reader.GetDateTime(0));
        Assert.Equal(offset, reader.GetDateTimeOffset(1));
        Assert.Equal(TimeSpan.FromHours(-5), reader.GetDateTimeOffset(1).Offset);
        Assert.Equal(-12.3456m, reader.GetDecimal(2));
        Assert.Equal(12345678901234567890123456789m, reader.GetDecimal(3));
        Assert.True(await reader.ReadAsync());
        Assert.All(Enumerable.Range(0, 4), i => Assert.True(reader.IsDBNull(i)));
    }

    [Fact]
    public async Task Datetime_rounds_to_three_hundredths_of_a_second_like_SQL_Server()
    {
        await using var server = new TdsTestServer();
        server.When("dmv", TdsResponse.Rows([new TdsColumn("created", TdsType.DateTime)], [new DateTime(2026, 1, 1, 0, 0, 0, 2)]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("dmv", connection);

        Assert.Equal(new DateTime(2026, 1, 1, 0, 0, 0, 3), await command.ExecuteScalarAsync());
    }

    [Fact]
    public async Task Sql_variant_values_keep_their_base_types()
    {
        var guid = Guid.NewGuid();
        var when = new DateTime(2026, 3, 4, 5, 6, 7).AddTicks(8901234);
        object?[] values = [42, 5_000_000_000L, (short)7, (byte)200, true, 0.25, 1.5f, guid, when, 123.45m, "60 KB", new byte[] { 1, 2 }, null];
        await using var server = new TdsTestServer();
        server.When("column_value", TdsResponse.Rows([TdsColumn.SqlVariant("column_value")], [.. values.Select(v => new[] { v })]));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("select column_value from sys.dm_xe_session_object_columns", connection);
        await using var reader = await command.ExecuteReaderAsync();

        var read = new List<object?>();
        while (await reader.ReadAsync())
        {
            read.Add(reader.IsDBNull(0) ? null : reader.GetValue(0));
        }

        Assert.Equal(values, read);
    }
}

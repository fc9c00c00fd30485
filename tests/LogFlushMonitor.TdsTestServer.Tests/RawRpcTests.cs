using System.Text;

namespace LogFlushMonitor.TdsTestServer.Tests;

/// <summary>RPC forms SqlClient does not send, written by hand from [MS-TDS] 2.2.6.6.</summary>
public sealed class RawRpcTests
{
    [Fact]
    public async Task Sp_executesql_called_by_name_with_named_stmt_and_params_is_recorded_like_ProcID_10()
    {
        await using var server = new TdsTestServer();
        server.When("select @id", r => TdsResponse.Rows([TdsColumn.Int("id")], [r.Parameter("id")]));
        using var raw = await RawClient.LoginAsync(server.Port, "raw", "pw");
        var rpc = new List<byte>(RawClient.AllHeaders);
        UsVarChar(rpc, "sp_executesql");
        rpc.AddRange([0, 0]); // option flags
        NVarCharParameter(rpc, "@stmt", "select @id");
        NVarCharParameter(rpc, "@params", "@id int");
        BVarChar(rpc, "@id");
        rpc.AddRange([0, 0x26, 4, 4, 0x2A, 0, 0, 0]); // status, INTN(4), length 4, 42

        await raw.SendAsync(0x03, [.. rpc]);
        var answer = await raw.ReadMessageAsync();

        Assert.NotNull(answer);
        Assert.Equal(0xFE, answer[^13]); // ends with DONEPROC
        var request = Assert.Single(server.Requests);
        Assert.Equal("sp_executesql", request.ProcedureName);
        Assert.Equal("select @id", request.Text);
        Assert.Equal("@id int", request.ParameterDeclarations);
        Assert.Equal(42, request.Parameter("id"));
        Assert.Single(request.Parameters);
    }

    private static void NVarCharParameter(List<byte> rpc, string name, string value)
    {
        BVarChar(rpc, name);
        rpc.Add(0); // status
        rpc.AddRange([0xE7, 0x40, 0x1F, 0x09, 0x04, 0xD0, 0x00, 0x34]); // nvarchar(4000), collation
        var bytes = Encoding.Unicode.GetBytes(value);
        rpc.AddRange(BitConverter.GetBytes((ushort)bytes.Length));
        rpc.AddRange(bytes);
    }

    private static void BVarChar(List<byte> rpc, string text)
    {
        rpc.Add((byte)text.Length);
        rpc.AddRange(Encoding.Unicode.GetBytes(text));
    }

    private static void UsVarChar(List<byte> rpc, string text)
    {
        rpc.AddRange(BitConverter.GetBytes((ushort)text.Length));
        rpc.AddRange(Encoding.Unicode.GetBytes(text));
    }
}

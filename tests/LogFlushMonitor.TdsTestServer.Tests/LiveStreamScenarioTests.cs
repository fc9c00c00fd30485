using System.Data;
using System.Threading.Channels;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

/// <summary>The shape of the monitor's live XE read: a blocking stream of multi-MB buffers, then Cancel.</summary>
public sealed class LiveStreamScenarioTests
{
    [Fact]
    public async Task Buffers_of_several_megabytes_stream_one_by_one_and_Cancel_ends_the_read()
    {
        var buffers = Enumerable.Range(1, 3).Select(i =>
        {
            var bytes = new byte[i * 1024 * 1024 + i];
            new Random(i).NextBytes(bytes);
            return bytes;
        }).ToArray();
        var dispatch = Channel.CreateUnbounded<object?[]>();
        await using var server = new TdsTestServer();
        server.When("sys.fn_MSxe_read_event_stream", TdsResponse.Empty()
            .StreamingResultSet([TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data")], dispatch.Reader));
        await using var connection = await Open.ConnectionAsync(server);
        await using var command = new SqlCommand("SELECT type, data FROM sys.fn_MSxe_read_event_stream(@session, 0)", connection) { CommandTimeout = 0 };
        command.Parameters.Add("@session", SqlDbType.NVarChar, 128).Value = "lfm_log_flush";

        var received = new List<byte[]>();
        var read = Task.Run(() =>
        {
            using var reader = command.ExecuteReader(CommandBehavior.SequentialAccess);
            while (reader.Read())
            {
                using var copy = new MemoryStream();
                using (var stream = reader.GetStream(1))
                {
                    stream.CopyTo(copy);
                }

                lock (received)
                {
                    received.Add(copy.ToArray());
                }
            }
        });

        var request = await server.WaitForRequestAsync(r => r.Text.Contains("fn_MSxe_read_event_stream", StringComparison.Ordinal));
        Assert.Equal("lfm_log_flush", request.Parameter("session"));
        foreach (var buffer in buffers)
        {
            await dispatch.Writer.WriteAsync([2, buffer]);
        }

        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (true)
        {
            lock (received)
            {
                if (received.Count == buffers.Length)
                {
                    break;
                }
            }

            Assert.False(read.IsCompleted, "the read ended before every buffer arrived");
            Assert.True(DateTime.UtcNow < deadline, "the buffers did not all arrive within 20 s");
            await Task.Delay(20);
        }

        command.Cancel();
        var error = await Assert.ThrowsAsync<SqlException>(() => read.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Contains("Operation cancelled by user", error.Message, StringComparison.Ordinal);
        Assert.All(buffers.Zip(received), pair => Assert.True(pair.First.AsSpan().SequenceEqual(pair.Second)));
    }
}

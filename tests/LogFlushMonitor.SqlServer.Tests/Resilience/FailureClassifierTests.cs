using System.Net.Sockets;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.TdsTestServer;
using LogFlushMonitor.XEvent;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Tests.Resilience;

/// <summary>Failures are classified by SQL error number (real SqlExceptions from a TDS server) and exception type, never by message text.</summary>
public sealed class FailureClassifierTests : IAsyncLifetime
{
    private readonly TdsTestServer.TdsTestServer _server = new();

    public Task InitializeAsync()
    {
        // "SELECT <n>" fails with error n, with a message that would mislead any text matching.
        _server.Handle(r => r.Text.StartsWith("SELECT ", StringComparison.Ordinal) && int.TryParse(r.Text[7..], out var n)
            ? TdsResponse.Failure(n, "Login failed: connection timeout, network error, permission denied.")
            : null);
        return Task.CompletedTask;
    }

    public async Task DisposeAsync() => await _server.DisposeAsync();

    [Theory]
    [InlineData(18456, "login_failed", FailureClass.Persistent)]
    [InlineData(4060, "login_failed", FailureClass.Persistent)]
    [InlineData(229, "permission", FailureClass.Persistent)]
    [InlineData(300, "permission", FailureClass.Persistent)]
    [InlineData(-2, "timeout", FailureClass.Transient)]
    [InlineData(25726, "stream_too_slow", FailureClass.Transient)]
    [InlineData(15151, "session_missing", FailureClass.Transient)]
    [InlineData(40613, "server_busy", FailureClass.Transient)]
    [InlineData(40197, "server_busy", FailureClass.Transient)]
    [InlineData(40501, "server_busy", FailureClass.Transient)]
    [InlineData(49918, "server_busy", FailureClass.Transient)]
    [InlineData(49919, "server_busy", FailureClass.Transient)]
    [InlineData(49920, "server_busy", FailureClass.Transient)]
    [InlineData(4221, "server_busy", FailureClass.Transient)]
    [InlineData(10928, "server_busy", FailureClass.Transient)]
    [InlineData(10929, "server_busy", FailureClass.Transient)]
    [InlineData(1205, "server_busy", FailureClass.Transient)]
    [InlineData(233, "disconnected", FailureClass.Transient)]
    [InlineData(64, "disconnected", FailureClass.Transient)]
    [InlineData(10053, "disconnected", FailureClass.Transient)]
    [InlineData(10054, "disconnected", FailureClass.Transient)]
    [InlineData(10060, "disconnected", FailureClass.Transient)]
    [InlineData(11001, "unreachable", FailureClass.Transient)]
    [InlineData(10061, "unreachable", FailureClass.Transient)]
    [InlineData(208, "other", FailureClass.Persistent)]
    [InlineData(50000, "other", FailureClass.Persistent)]
    public async Task A_sql_error_is_classified_by_its_number(int number, string kind, FailureClass retry)
    {
        var e = await FailAsync(number);

        Assert.Equal(number, e.Number);
        Assert.Equal(new SourceFailure(kind, retry, number), FailureClassifier.Classify(e));
        Assert.Equal(kind, SqlErrorKinds.Classify(e));
    }

    [Fact]
    public void Other_exceptions_are_classified_by_type()
    {
        Assert.Equal((SqlErrorKinds.Timeout, FailureClass.Transient), Of(new TimeoutException()));
        Assert.Equal((SqlErrorKinds.Disconnected, FailureClass.Transient), Of(new IOException("reset")));
        Assert.Equal((SqlErrorKinds.Unreachable, FailureClass.Transient), Of(new SocketException((int)SocketError.ConnectionRefused)));
        Assert.Equal((SqlErrorKinds.Disconnected, FailureClass.Transient), Of(new SocketException((int)SocketError.ConnectionReset)));
        Assert.Equal((SqlErrorKinds.SessionMissing, FailureClass.Transient), Of(new SessionMissingException()));
        Assert.Equal((SqlErrorKinds.Protocol, FailureClass.Persistent), Of(new XelFormatException("bad buffer", null, 0, null)));
        Assert.Equal((SqlErrorKinds.Protocol, FailureClass.Persistent), Of(new Core.Signals.StatementAnswerException("sys.databases: database_id 5 is listed twice")));
        Assert.Equal((SqlErrorKinds.Unsupported, FailureClass.Persistent), Of(new NotSupportedException()));
        Assert.Equal((SqlErrorKinds.Unexpected, FailureClass.Unexpected), Of(new NullReferenceException()));
        Assert.Equal((SqlErrorKinds.Unexpected, FailureClass.Unexpected), Of(Thrown(() => throw new InvalidOperationException("connection closed"))));
        // The same exception when the caller saw its connection close is the lost connection, not a bug.
        Assert.Equal(SqlErrorKinds.Disconnected, FailureClassifier.Classify(new InvalidOperationException(), connectionLost: true).Kind);

        static (string, FailureClass) Of(Exception e) => FailureClassifier.Classify(e) is var f ? (f.Kind, f.Class) : default;
    }

    [Fact]
    public void A_protocol_failure_is_logged_with_what_and_where_not_only_its_type()
    {
        // Issue 31 item 8: "a protocol failure logs only the exception type".
        var buffer = LogFlushMonitor.SqlServer.Polling.SqlServerLog.Safe(new InvalidDataException("a live-stream buffer is larger than Sources:SqlServer:MaxStreamBufferBytes (67,108,864 bytes)"));
        Assert.Contains("Sources:SqlServer:MaxStreamBufferBytes", buffer, StringComparison.Ordinal);
        var answer = LogFlushMonitor.SqlServer.Polling.SqlServerLog.Safe(new Core.Signals.StatementAnswerException("sys.databases: database_id 5 is listed twice (sales, \u001b]0;pwned\u0007sales)"));
        Assert.Contains("database_id 5 is listed twice", answer, StringComparison.Ordinal);
        Assert.DoesNotContain('\u001b', answer); // a name from the server reaches the log printable
        Assert.DoesNotContain('\u0007', answer);
        // Anything else is still reduced to its type: its message might carry what the log must not.
        Assert.Equal("InvalidOperationException", LogFlushMonitor.SqlServer.Polling.SqlServerLog.Safe(new InvalidOperationException($"Server=x;Password={TestSecrets.Password}")));
    }

    private static Exception Thrown(Action action)
    {
        try
        {
            action();
        }
        catch (Exception e)
        {
            return e;
        }

        throw new InvalidOperationException("nothing thrown");
    }

    private async Task<SqlException> FailAsync(int number)
    {
        await using var connection = new SqlConnection(_server.ConnectionString());
        await connection.OpenAsync();
        await using var command = new SqlCommand($"SELECT {number}", connection);
        return await Assert.ThrowsAsync<SqlException>(() => command.ExecuteNonQueryAsync());
    }
}

using LogFlushMonitor.SqlServer.Connections;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>Log lines of the instance poller and the fleet (event ids 500-549; the signals' own are Core's SignalLog). None carries a connection string.</summary>
internal static partial class SqlServerLog
{
    /// <summary>
    /// What may be logged about a failure: the exception type, the SQL error number and the server's message (with the
    /// socket error behind a network failure). A SqlException's message never holds the password. Our own protocol
    /// failures (an answer no server gives, a stream buffer over its limit, an unreadable buffer) say what and where, with
    /// any name from the server made printable; other exceptions are reduced to their type.
    /// </summary>
    public static string Safe(Exception e) => e switch
    {
        // SqlClient reports a refused or unreachable server as error 0 "internal exception": the socket error says which.
        SqlException s => $"SQL error {s.Number}: {s.Message}" + (SocketCause(s) is { SocketErrorCode: not System.Net.Sockets.SocketError.Success } so ? $" (socket error: {so.SocketErrorCode})" : ""),
        System.Net.Sockets.SocketException so => $"socket error: {so.SocketErrorCode}",
        TimeoutException => "timeout",
        ProtocolException p => p.Message,
        Core.Signals.StatementAnswerException or InvalidDataException or XEvent.XelFormatException or XEvent.XelUnsupportedVersionException
            => $"{e.GetType().Name}: {Core.Text.PrintableText.Of(e.Message)}",
        _ => e.GetType().Name,
    };

    private static System.Net.Sockets.SocketException? SocketCause(Exception e)
    {
        for (var x = e.InnerException; x is not null; x = x.InnerException)
        {
            if (x is System.Net.Sockets.SocketException so)
            {
                return so;
            }
        }

        return null;
    }

    [LoggerMessage(EventId = 500, Level = LogLevel.Information, Message = "{Instance}: connected (server version {Version})")]
    public static partial void Connected(ILogger logger, string instance, string version);

    [LoggerMessage(EventId = 501, Level = LogLevel.Warning, Message = "{Instance}: polling {Kind} failed ({ErrorType}): {Problem}; the other polls go on")]
    public static partial void KindFailed(ILogger logger, string instance, string kind, string errorType, string problem);

    [LoggerMessage(EventId = 502, Level = LogLevel.Information, Message = "{Instance}: polling {Kind} works again")]
    public static partial void KindRecovered(ILogger logger, string instance, string kind);

    [LoggerMessage(EventId = 521, Level = LogLevel.Information, Message = "{Instance}: {Note}")]
    public static partial void ConnectTimeoutFromConnectionString(ILogger logger, string instance, string note);

    [LoggerMessage(EventId = 510, Level = LogLevel.Information, Message = "{Instance}: polling every {Interval} ({Target})")]
    public static partial void InstanceStarted(ILogger logger, string instance, TimeSpan interval, string target);

    [LoggerMessage(EventId = 512, Level = LogLevel.Error, Message = "{Instance}: cannot start: {Problem}")]
    public static partial void InstanceInvalid(ILogger logger, string instance, string problem);

    [LoggerMessage(EventId = 513, Level = LogLevel.Information, Message = "Shard {Shard}: watching {Count} of {Total} instances: {Instances}")]
    public static partial void ShardSelected(ILogger logger, string shard, int count, int total, string instances);
}

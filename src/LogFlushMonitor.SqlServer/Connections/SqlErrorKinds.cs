using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer;

/// <summary>Classifies failures into the error.type values exported by sqlserver.monitor.errors.</summary>
public static class SqlErrorKinds
{
    /// <summary>Login failed (18456) or the database could not be opened (4060).</summary>
    public const string LoginFailed = "login_failed";

    /// <summary>A permission is missing (229, 297, 300, 15247...).</summary>
    public const string Permission = "permission";

    /// <summary>A command or connection timed out.</summary>
    public const string Timeout = "timeout";

    /// <summary>The connection broke.</summary>
    public const string Disconnected = "disconnected";

    /// <summary>The server dropped our event stream because we were too slow (25726).</summary>
    public const string StreamTooSlow = "stream_too_slow";

    /// <summary>The event session is missing or stopped.</summary>
    public const string SessionMissing = "session_missing";

    /// <summary>TLS failed: the server's certificate was rejected, or the server cannot encrypt and the client must.</summary>
    public const string Tls = "tls";

    /// <summary>Bad configuration (connection string, options).</summary>
    public const string Configuration = "configuration";

    /// <summary>Anything else.</summary>
    public const string Other = "other";

    /// <summary>The kind of an exception.</summary>
    public static string Classify(Exception e) => e switch
    {
        SqlException s => Classify(s),
        TimeoutException => Timeout,
        InvalidOperationException when e.Message.Contains("connection", StringComparison.OrdinalIgnoreCase) && e.Message.Contains("closed", StringComparison.OrdinalIgnoreCase) => Disconnected,
        InvalidOperationException => Configuration,
        IOException or System.Net.Sockets.SocketException => Disconnected,
        _ => Other,
    };

    /// <summary>The kind of a SqlException by its first error number.</summary>
    public static string Classify(SqlException e) => ConnectionSecurity.IsTlsFailure(e) ? Tls : e.Number switch
    {
        18456 or 4060 or 18452 or 18470 or 18486 or 18487 or 18488 => LoginFailed,
        229 or 230 or 262 or 297 or 300 or 15247 => Permission,
        -2 => Timeout,
        25726 => StreamTooSlow,
        // "Cannot alter the event session, because it does not exist or you do not have permission."
        15151 => SessionMissing,
        -1 or 2 or 53 or 64 or 233 or 10053 or 10054 or 10060 or 11 => Disconnected,
        _ => e.Class >= 20 ? Disconnected : Other,
    };
}

namespace LogFlushMonitor.SqlServer.Connections;

/// <summary>
/// The error.type values exported by sqlserver.monitor.errors. <see cref="Resilience.FailureClassifier"/> decides
/// which one a failure is (by SQL error number and exception type, never by message text).
/// </summary>
public static class SqlErrorKinds
{
    /// <summary>Login failed (18456 and relatives) or the login's database could not be opened (4060).</summary>
    public const string LoginFailed = "login_failed";

    /// <summary>A permission is missing (229, 297, 300, 15247...).</summary>
    public const string Permission = "permission";

    /// <summary>A command or connection timed out.</summary>
    public const string Timeout = "timeout";

    /// <summary>Nothing answered: connection refused, host not found or unreachable.</summary>
    public const string Unreachable = "unreachable";

    /// <summary>An established connection broke.</summary>
    public const string Disconnected = "disconnected";

    /// <summary>The server is busy, throttling, failing over or chose us as a deadlock victim: retry later.</summary>
    public const string ServerBusy = "server_busy";

    /// <summary>The server dropped our event stream because we were too slow (25726).</summary>
    public const string StreamTooSlow = "stream_too_slow";

    /// <summary>The live stream went silent while the server kept flushing, or stopped in the middle of a row: ended by the watchdog.</summary>
    public const string Stalled = "stalled";

    /// <summary>The event session is missing or stopped.</summary>
    public const string SessionMissing = "session_missing";

    /// <summary>TLS failed: the server's certificate was rejected, or the server cannot encrypt and the client must.</summary>
    public const string Tls = "tls";

    /// <summary>The server's answer is not TDS as SqlClient expects it (another service on that port, or a broken proxy).</summary>
    public const string Protocol = "protocol";

    /// <summary>The server lacks something the monitor needs (an XE event, field or target).</summary>
    public const string Unsupported = "unsupported";

    /// <summary>Bad configuration (connection string, options).</summary>
    public const string Configuration = "configuration";

    /// <summary>
    /// sys.dm_os_performance_counters has no row of the Databases object: the instance's counters are not registered
    /// (a setup problem, error 3409 in the setup log; Microsoft's page of the DMV), so every counter series is missing.
    /// </summary>
    public const string CountersMissing = "counters_missing";

    /// <summary>A watched database is online yet has no performance counters (or an included database does not exist).</summary>
    public const string DatabaseMissing = "database_missing";

    /// <summary>Another SQL error (a statement the server rejects).</summary>
    public const string Other = "other";

    /// <summary>An exception the monitor does not expect: a bug, logged with its stack trace.</summary>
    public const string Unexpected = "unexpected";

    /// <summary>The kind of an exception (see <see cref="Resilience.FailureClassifier.Classify(Exception, bool)"/>).</summary>
    public static string Classify(Exception e) => Resilience.FailureClassifier.Classify(e).Kind;
}

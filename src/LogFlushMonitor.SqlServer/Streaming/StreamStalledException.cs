namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>
/// The live stream's connection was silent while it should not have been, and <see cref="StreamWatchdog"/> ended it
/// (error.type <c>stalled</c>): a path that stops forwarding without closing raises no error of its own.
/// </summary>
public sealed class StreamStalledException : Exception
{
    /// <summary>Creates the exception.</summary>
    public StreamStalledException()
        : this(null)
    {
    }

    /// <summary>Creates the exception with what the watchdog saw.</summary>
    public StreamStalledException(string? reason)
        : base("The live stream stalled: " + (reason ?? "no byte while one was due") + "; the connection was closed and is made again.")
    {
    }

    /// <summary>Creates the exception with what the watchdog saw and the error the closed connection raised.</summary>
    public StreamStalledException(string? reason, Exception inner)
        : base("The live stream stalled: " + (reason ?? "no byte while one was due") + "; the connection was closed and is made again.", inner)
    {
    }
}

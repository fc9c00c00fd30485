namespace LogFlushMonitor.SqlServer.Sessions;

/// <summary>An event session the monitor reads is stopped or gone (a DBA stopped or dropped it): the next attempt re-creates it.</summary>
public sealed class SessionMissingException : Exception
{
    /// <summary>Creates the exception.</summary>
    public SessionMissingException()
        : base("The event session is not running.")
    {
    }

    /// <summary>Creates the exception with what was found.</summary>
    public SessionMissingException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with what was found and its cause.</summary>
    public SessionMissingException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

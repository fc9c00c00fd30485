namespace LogFlushMonitor.TdsTestServer;

/// <summary>
/// Thrown by a handler, a row sequence, or passed to <c>ChannelWriter.Complete</c> of a streaming result set:
/// the client gets this ERROR token (e.g. 25726 in the middle of a live XE stream) instead of error 50000.
/// </summary>
/// <param name="number">SQL Server error number.</param>
/// <param name="message">Message text.</param>
/// <param name="state">Error state.</param>
/// <param name="severity">Severity (class); 11-16 are user errors.</param>
public sealed class TdsErrorException(int number, string message, byte state = 1, byte severity = 16) : Exception(message)
{
    /// <summary>SQL Server error number.</summary>
    public int Number { get; } = number;

    /// <summary>Error state.</summary>
    public byte State { get; } = state;

    /// <summary>Severity (class).</summary>
    public byte Severity { get; } = severity;
}

namespace LogFlushMonitor.TdsTestServer;

/// <summary>An entry in the server's own event log (connections, protocol faults, handler failures).</summary>
/// <param name="Timestamp">When it happened.</param>
/// <param name="ConnectionId">Connection concerned, 0 for the listener.</param>
/// <param name="Message">What happened.</param>
public sealed record TdsServerEvent(DateTimeOffset Timestamp, int ConnectionId, string Message);

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>Thrown when a scripted cut closes the socket, to unwind the connection without an error event.</summary>
internal sealed class ConnectionCutException() : Exception("The connection was cut on demand.");

namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>A client sent bytes that do not follow [MS-TDS]; the connection is closed.</summary>
public sealed class TdsProtocolException(string message) : Exception(message);

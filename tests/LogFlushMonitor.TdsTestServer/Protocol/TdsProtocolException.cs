namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>A client sent bytes that do not follow [MS-TDS]; the connection is closed.</summary>
internal sealed class TdsProtocolException(string message) : Exception(message);

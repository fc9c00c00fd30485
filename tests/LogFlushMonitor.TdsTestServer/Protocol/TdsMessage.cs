namespace LogFlushMonitor.TdsTestServer.Protocol;

/// <summary>One reassembled client message: the type and status of its packets and their joined payload.</summary>
internal sealed record TdsMessage(byte Type, byte FirstStatus, byte[] Payload);

namespace LogFlushMonitor.TdsTestServer;

/// <summary>Assembly marker.</summary>
public static class AssemblyMarker
{
}

namespace LogFlushMonitor.Prometheus;

/// <summary>Assembly marker.</summary>
public static class AssemblyMarker
{
}

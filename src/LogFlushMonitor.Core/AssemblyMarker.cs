namespace LogFlushMonitor.Core;

/// <summary>Assembly marker.</summary>
public static class AssemblyMarker
{
}

namespace LogFlushMonitor.XEvent;

/// <summary>Assembly marker.</summary>
public static class AssemblyMarker
{
}

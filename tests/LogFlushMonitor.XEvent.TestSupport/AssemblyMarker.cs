namespace LogFlushMonitor.XEvent.TestSupport;

/// <summary>Assembly marker.</summary>
public static class AssemblyMarker
{
}

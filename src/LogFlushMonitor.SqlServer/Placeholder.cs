namespace LogFlushMonitor.SqlServer;

/// <summary>Assembly marker until the first source lands.</summary>
internal static class AssemblyMarker
{
}

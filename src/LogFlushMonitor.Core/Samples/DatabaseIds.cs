namespace LogFlushMonitor.Core.Samples;

/// <summary>
/// The database ids a sample may carry. SQL Server numbers databases from 1 to 32,767 (the resource database; no
/// instance holds more), and wait events outside any database carry 0. Anything else is damage or forgery: the
/// aggregation counts it as malformed and skips it, since it indexes its per-database state by id.
/// </summary>
public static class DatabaseIds
{
    /// <summary>The highest database id SQL Server assigns.</summary>
    public const int Max = 32767;

    /// <summary>Whether <paramref name="databaseId"/> is one SQL Server can assign (0 to <see cref="Max"/>).</summary>
    public static bool IsValid(int databaseId) => (uint)databaseId <= Max;
}

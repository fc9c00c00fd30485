namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// Which databases an instance watches: the include list (empty = all), minus the exclude list, minus the
/// engine's internal counter instances, ignoring case. The one place the lists are applied: they are never sent to the
/// server (a list expanded into parameters broke past 2,100 names, error 8003, and the server's collation would have
/// decided the comparison).
/// </summary>
public sealed class DatabaseFilter
{
    /// <summary>The counter instance for the whole server, always kept.</summary>
    public const string Total = "_Total";

    // Counter instances of the engine's hidden databases, never user data: mssqlsystemresource everywhere, model_msdb and
    // model_replicatedmaster on SQL Server 2022 (the OpenTelemetry Collector's perfCounterQueryData.txt capture; docs/sqlserver.md),
    // model_masterdb and model_userdb on Azure (Telegraf's and DBA Dash's Azure queries filter them).
    private static readonly HashSet<string> Internal = new(StringComparer.OrdinalIgnoreCase)
    {
        "mssqlsystemresource", "model_msdb", "model_replicatedmaster", "model_masterdb", "model_userdb",
    };

    private readonly HashSet<string> _include;
    private readonly HashSet<string> _exclude;

    /// <summary>A filter of <paramref name="include"/> (empty: all) minus <paramref name="exclude"/>.</summary>
    public DatabaseFilter(IEnumerable<string> include, IEnumerable<string> exclude)
    {
        // Ordinal-ignore-case, on every server: a case-sensitive server collation is rare, and names that differ only in
        // case are then both watched or both not.
        _include = new HashSet<string>(include, StringComparer.OrdinalIgnoreCase);
        _exclude = new HashSet<string>(exclude, StringComparer.OrdinalIgnoreCase);
        Include = [.. _include];
        Exclude = [.. _exclude];
    }

    /// <summary>Every database but the internal ones.</summary>
    public static DatabaseFilter All { get; } = new([], []);

    /// <summary>The include list, without duplicates.</summary>
    public string[] Include { get; }

    /// <summary>The exclude list, without duplicates.</summary>
    public string[] Exclude { get; }

    /// <summary>Whether every database is included.</summary>
    public bool IncludeAll => _include.Count == 0;

    /// <summary>Whether a database is watched.</summary>
    public bool Watches(string database) =>
        !Internal.Contains(database) && (_include.Count == 0 || _include.Contains(database)) && !_exclude.Contains(database);

    /// <summary>Whether a counter instance (a database or _Total) is watched.</summary>
    public bool WatchesCounterInstance(string instance) => instance == Total || Watches(instance);

    /// <summary>
    /// master, model and msdb (database_id 1, 3 and 4): the event session leaves them out (its predicate is
    /// <c>database_id = 2 OR database_id &gt; 4</c>) unless an include list names them, while their counters are polled
    /// like any database's. The agreement and the stream's watchdog hold the events only against the databases the session
    /// watches. Matched by name (the counters name databases, not ids): user databases get ids from 5 (Microsoft's blog "Get all
    /// system databases of a server", Jens Suessmeyer), so 1, 3 and 4 are these three (docs/sqlserver.md lists it as a
    /// belief a capture's sys.databases rows settle).
    /// </summary>
    public static bool IsOutsideDefaultSession(string database) =>
        database.Equals("master", StringComparison.OrdinalIgnoreCase)
        || database.Equals("model", StringComparison.OrdinalIgnoreCase)
        || database.Equals("msdb", StringComparison.OrdinalIgnoreCase);
}

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Which databases an instance watches: the include list (empty = all), minus the exclude list, minus the
/// engine's internal counter instances. The same lists also travel to the server as parameters.
/// </summary>
internal sealed class DatabaseFilter
{
    /// <summary>The counter instance for the whole server, always kept.</summary>
    public const string Total = "_Total";

    // Counter instances of the engine's hidden databases, never user data: mssqlsystemresource everywhere, model_msdb and
    // model_replicatedmaster in a Linux container (the OpenTelemetry Collector's perfCounterQueryData.txt capture),
    // model_masterdb and model_userdb on Azure (Telegraf's and DBA Dash's Azure queries filter them).
    private static readonly HashSet<string> Internal = new(StringComparer.OrdinalIgnoreCase)
    {
        "mssqlsystemresource", "model_msdb", "model_replicatedmaster", "model_masterdb", "model_userdb",
    };

    private readonly HashSet<string> _include;
    private readonly HashSet<string> _exclude;

    public DatabaseFilter(IEnumerable<string> include, IEnumerable<string> exclude)
    {
        // Ordinal-ignore-case: a case-sensitive server collation is rare; the server-side filter decides there.
        _include = new HashSet<string>(include, StringComparer.OrdinalIgnoreCase);
        _exclude = new HashSet<string>(exclude, StringComparer.OrdinalIgnoreCase);
        Include = [.. _include];
        Exclude = [.. _exclude];
    }

    /// <summary>Include list as sent to the server.</summary>
    public string[] Include { get; }

    /// <summary>Exclude list as sent to the server.</summary>
    public string[] Exclude { get; }

    /// <summary>Whether every database is included (parameter <c>@includeAll</c> of the filtered statements).</summary>
    public bool IncludeAll => _include.Count == 0;

    /// <summary>Whether a database is watched.</summary>
    public bool Watches(string database) =>
        !Internal.Contains(database) && (_include.Count == 0 || _include.Contains(database)) && !_exclude.Contains(database);

    /// <summary>Whether a counter instance (a database or _Total) is watched.</summary>
    public bool WatchesCounterInstance(string instance) => instance == Total || Watches(instance);
}

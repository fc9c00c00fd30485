namespace LogFlushMonitor.SqlServer.Check;

/// <summary>One permission (or one choice among alternatives) as <c>check</c> found it.</summary>
/// <param name="Permission">The permission name, e.g. VIEW SERVER STATE; for alternatives the one held, or the first followed by the others in parentheses.</param>
/// <param name="Held">True or false; null when this server does not know the name.</param>
/// <param name="Purpose">What the monitor needs it for.</param>
/// <param name="Optional">Everything else works without it: missing, it is a warning, not a problem.</param>
public sealed record PermissionStatus(string Permission, bool? Held, string Purpose, bool Optional = false);

/// <summary>What <c>check</c> found on one instance.</summary>
public sealed record InstanceCheckResult
{
    /// <summary>The configured instance name.</summary>
    public required string Instance { get; init; }

    /// <summary>Server, database, user and encryption settings (never the password).</summary>
    public string? Target { get; init; }

    /// <summary>SERVERPROPERTY('ProductVersion'), e.g. 16.0.4135.4.</summary>
    public string? ProductVersion { get; init; }

    /// <summary>SERVERPROPERTY('Edition').</summary>
    public string? Edition { get; init; }

    /// <summary>SERVERPROPERTY('EngineEdition'): 5 = Azure SQL Database, 8 = Managed Instance.</summary>
    public int? EngineEdition { get; init; }

    /// <summary>sys.dm_exec_connections.encrypt_option of our connection.</summary>
    public bool? Encrypted { get; init; }

    /// <summary>Permissions checked.</summary>
    public IReadOnlyList<PermissionStatus> Permissions { get; init; } = [];

    /// <summary>What the monitor will collect from this instance as things stand.</summary>
    public IReadOnlyList<string> WillCollect { get; init; } = [];

    /// <summary>Things that stop the monitor from working fully: any of these makes <c>check</c> exit 1.</summary>
    public IReadOnlyList<string> Problems { get; init; } = [];

    /// <summary>Things worth knowing that do not stop it.</summary>
    public IReadOnlyList<string> Warnings { get; init; } = [];

    /// <summary>
    /// Each watched database's log write latency since its log file was opened, held against the storage it runs on
    /// (Azure's published latency for the tier, else SQL Server's 10-15 ms line): information, never a problem.
    /// </summary>
    public IReadOnlyList<string> Storage { get; init; } = [];

    /// <summary>
    /// Settings worth changing that one poll showed (a log with thousands of VLFs, percent or 1 MB growth on a large log):
    /// advice, never a problem or a warning.
    /// </summary>
    public IReadOnlyList<string> Advice { get; init; } = [];

    /// <summary>Whether all is well.</summary>
    public bool Ok => Problems.Count == 0;
}

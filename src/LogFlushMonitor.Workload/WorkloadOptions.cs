using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.Workload;

/// <summary>What a <see cref="WorkloadRunner"/> run does: where, which scenarios, how long, how many sessions.</summary>
public sealed record WorkloadOptions
{
    /// <summary>The database the workload creates and uses unless told otherwise.</summary>
    public const string DefaultDatabase = "LogFlushMonitorWorkload";

    /// <summary>Databases the workload never uses: tempdb does not flush on commit, and the others are the server's own.</summary>
    public static readonly IReadOnlySet<string> SystemDatabases = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "master", "model", "msdb", "tempdb" };

    /// <summary>The server (its data source: any database; the workload switches to master and to its own database).</summary>
    public required SqlServerDataSource Server { get; init; }

    /// <summary>The workload's own database, created when missing (quoted as an identifier).</summary>
    public string Database { get; init; } = DefaultDatabase;

    /// <summary>Scenarios, run one after the other.</summary>
    public IReadOnlyList<WorkloadScenario> Scenarios { get; init; } = [WorkloadScenario.Autocommit];

    /// <summary>How long each scenario runs; null = until <see cref="RowsPerScenario"/> rows are committed.</summary>
    public TimeSpan? Duration { get; init; }

    /// <summary>Rows each scenario commits over all its sessions before it ends; null = no limit (then <see cref="Duration"/> decides).</summary>
    public long? RowsPerScenario { get; init; }

    /// <summary>Concurrent sessions (connections) per scenario.</summary>
    public int Sessions { get; init; } = 1;

    /// <summary>
    /// Rows per transaction for batched, big-transaction and the sequence scenarios (defaults
    /// <see cref="WorkloadScenarios.DefaultBatchSize"/> and <see cref="WorkloadScenarios.DefaultBigTransactionRows"/>);
    /// 0 for big-transaction means one transaction per session, committed when the scenario ends.
    /// </summary>
    public int? BatchSize { get; init; }

    /// <summary>
    /// Runs each scenario twice, first with the event session stopped, then with it started and its live stream read
    /// (as the monitor reads it), so the two can be compared (<see cref="OverheadComparison"/>). The session is a temporary
    /// one, <see cref="OverheadSessionName"/>, made as the monitor makes its own (the same events, predicates and options)
    /// and dropped afterwards; the monitor's own session is left alone.
    /// </summary>
    public bool Overhead { get; init; }

    /// <summary>The temporary session of <see cref="Overhead"/>: the instance's session name and <c>_overhead</c>.</summary>
    public string OverheadSessionName => Server.Options.SessionName + "_overhead";

    /// <summary>Drop the database when the run ends (only a database the workload created: see <see cref="WorkloadRunner"/>).</summary>
    public bool Drop { get; init; }

    /// <summary>Attempts to reach the server (at start, and for each session after a lost connection) before the run fails.</summary>
    public int ConnectAttempts { get; init; } = 5;

    /// <summary>The first wait between attempts; it doubles up to <see cref="MaxRetryDelay"/>, with jitter.</summary>
    public TimeSpan RetryDelay { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>The longest wait between attempts.</summary>
    public TimeSpan MaxRetryDelay { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Timeout of each statement.</summary>
    public TimeSpan CommandTimeout { get; init; } = TimeSpan.FromSeconds(60);

    /// <summary>
    /// Rows the workload's tables may hold before it empties them (TRUNCATE, between transactions), so a workload
    /// cycling for days keeps its database small; null = never.
    /// </summary>
    public long? MaxRowsKept { get; init; } = 1_000_000;

    /// <summary>Clock for durations, elapsed times and retry delays.</summary>
    public TimeProvider Time { get; init; } = TimeProvider.System;

    /// <summary>Every problem, each naming its option; empty when the options are usable.</summary>
    public IReadOnlyList<string> Validate()
    {
        var problems = new List<string>();
        if (SqlIdentifier.Problem(Database) is { } p)
        {
            problems.Add($"--database {p}: a database name is 1 to 128 characters without control characters.");
        }
        else if (SystemDatabases.Contains(Database))
        {
            problems.Add($"--database {Database} is a system database: the workload needs a database of its own (tempdb does not even flush on commit). Leave --database out for {DefaultDatabase}.");
        }

        if (Scenarios.Count == 0)
        {
            problems.Add($"--scenario names no scenario: use one or more of {string.Join(", ", WorkloadScenarios.Names)}, or all.");
        }

        if (Duration is null && RowsPerScenario is null)
        {
            problems.Add("--duration is missing: say how long each scenario runs (e.g. 2m), or how many rows it commits (--rows).");
        }

        if (Duration is { } d && d <= TimeSpan.Zero)
        {
            problems.Add("--duration must be positive (e.g. 90s, 5m, 00:10:00).");
        }

        if (RowsPerScenario is <= 0)
        {
            problems.Add("--rows must be positive.");
        }

        if (Sessions is < 1 or > 256)
        {
            problems.Add($"--sessions must be 1 to 256 (got {Sessions}).");
        }

        if (BatchSize is { } b)
        {
            if (b < 0 || (b == 0 && Scenarios.Any(s => s != WorkloadScenario.BigTransaction && WorkloadScenarios.UsesBatchSize(s))))
            {
                problems.Add($"--batch-size must be positive (0 is allowed for big-transaction alone: one transaction per session for the whole run; got {b}).");
            }
            else if (!Scenarios.Any(WorkloadScenarios.UsesBatchSize))
            {
                problems.Add("--batch-size applies to batched, big-transaction, sequence-nocache and sequence-cache; autocommit and delayed-durability commit every row.");
            }
        }

        if (ConnectAttempts < 1)
        {
            problems.Add("--connect-attempts must be at least 1.");
        }

        return problems;
    }
}

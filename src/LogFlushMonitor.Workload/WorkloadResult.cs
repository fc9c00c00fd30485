namespace LogFlushMonitor.Workload;

/// <summary>How a scenario or a run ended.</summary>
public enum WorkloadOutcome
{
    /// <summary>Ran its duration or its rows.</summary>
    Completed,

    /// <summary>Stopped early by the caller (Ctrl+C): open transactions were rolled back.</summary>
    Cancelled,

    /// <summary>Stopped by an error that retrying cannot fix, or the server stayed unreachable.</summary>
    Failed,

    /// <summary>Nothing ran: the options do not fit the server (e.g. the database exists and is not the workload's).</summary>
    Refused,
}

/// <summary>What one scenario did.</summary>
/// <param name="Scenario">The scenario.</param>
/// <param name="Sessions">Concurrent sessions.</param>
/// <param name="RowsPerTransaction">Rows per transaction (1 for row-at-a-time; 0 = one transaction per session).</param>
/// <param name="Elapsed">Wall time it ran.</param>
/// <param name="Commits">Transactions committed (implicit ones included).</param>
/// <param name="Rows">Rows committed.</param>
/// <param name="Errors">Transient errors (deadlocks, lost connections, timeouts) that were retried.</param>
/// <param name="Reconnects">Connections opened again after one was lost.</param>
/// <param name="Outcome">How it ended.</param>
public sealed record ScenarioResult(
    WorkloadScenario Scenario,
    int Sessions,
    int RowsPerTransaction,
    TimeSpan Elapsed,
    long Commits,
    long Rows,
    long Errors,
    long Reconnects,
    WorkloadOutcome Outcome)
{
    /// <summary>Commits per second over <see cref="Elapsed"/>.</summary>
    /// <summary>When the scenario's sessions started (UTC, the machine's clock): the start of its window for <c>compare</c>.</summary>
    public DateTime StartedUtc { get; init; }

    /// <summary>When its last session stopped (UTC): the end of its window.</summary>
    public DateTime EndedUtc { get; init; }

    public double CommitsPerSecond => Elapsed > TimeSpan.Zero ? Commits / Elapsed.TotalSeconds : 0;

    /// <summary>Rows per second over <see cref="Elapsed"/>.</summary>
    public double RowsPerSecond => Elapsed > TimeSpan.Zero ? Rows / Elapsed.TotalSeconds : 0;
}

/// <summary>What a whole run did.</summary>
/// <param name="Scenarios">Each scenario that started, in order.</param>
/// <param name="Outcome">How the run ended.</param>
/// <param name="Problem">Why it failed (never a connection string), null otherwise.</param>
/// <param name="Dropped">Whether the database was dropped at the end.</param>
public sealed record WorkloadResult(IReadOnlyList<ScenarioResult> Scenarios, WorkloadOutcome Outcome, string? Problem, bool Dropped)
{
    /// <summary>Commits of every scenario.</summary>
    public long Commits => Scenarios.Sum(s => s.Commits);

    /// <summary>Rows of every scenario.</summary>
    public long Rows => Scenarios.Sum(s => s.Rows);

    /// <summary>Retried errors of every scenario.</summary>
    public long Errors => Scenarios.Sum(s => s.Errors);

    /// <summary>Wall time of every scenario.</summary>
    public TimeSpan Elapsed => Scenarios.Aggregate(TimeSpan.Zero, (t, s) => t + s.Elapsed);
}

/// <summary>A live view of the scenario running now, for a progress line.</summary>
/// <param name="Scenario">The scenario.</param>
/// <param name="Elapsed">Time since it started.</param>
/// <param name="Duration">Its planned duration, if any.</param>
/// <param name="Commits">Commits so far.</param>
/// <param name="Rows">Rows committed so far.</param>
/// <param name="Errors">Retried errors so far.</param>
public sealed record WorkloadProgress(WorkloadScenario Scenario, TimeSpan Elapsed, TimeSpan? Duration, long Commits, long Rows, long Errors);

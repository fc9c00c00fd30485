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
/// <param name="Latency">Its commits' round trips as the client timed them, or null when none committed.</param>
/// <param name="Phase">With <c>--overhead</c>: whether the event session ran meanwhile.</param>
/// <param name="SessionCost">With <c>--overhead</c>, the phase with the session: what the server measured the session cost.</param>
public sealed record ScenarioResult(
    WorkloadScenario Scenario,
    int Sessions,
    int RowsPerTransaction,
    TimeSpan Elapsed,
    long Commits,
    long Rows,
    long Errors,
    long Reconnects,
    WorkloadOutcome Outcome,
    CommitLatency? Latency = null,
    SessionPhase Phase = SessionPhase.None,
    string? SessionCost = null)
{
    /// <summary>When the scenario's sessions started (UTC, the machine's clock): the start of its window for <c>compare</c>.</summary>
    public DateTime StartedUtc { get; init; }

    /// <summary>When its last session stopped (UTC): the end of its window.</summary>
    public DateTime EndedUtc { get; init; }

    /// <summary>Commits per second over <see cref="Elapsed"/>.</summary>
    public double CommitsPerSecond => Elapsed > TimeSpan.Zero ? Commits / Elapsed.TotalSeconds : 0;

    /// <summary>Rows per second over <see cref="Elapsed"/>.</summary>
    public double RowsPerSecond => Elapsed > TimeSpan.Zero ? Rows / Elapsed.TotalSeconds : 0;
}

/// <summary>Whether the event session ran while a scenario did (<c>workload --overhead</c>).</summary>
public enum SessionPhase
{
    /// <summary>Not measured against the session (a plain run).</summary>
    None,

    /// <summary>The event session was stopped (dropped).</summary>
    Off,

    /// <summary>The event session ran, its live stream read.</summary>
    On,
}

/// <summary>
/// The same scenario without and with the event session: what the session changed (<c>workload --overhead</c>). Each
/// figure is the second run's over the first's; a DBA reads it next to the run-to-run noise of their own server.
/// </summary>
/// <param name="Off">The run with the session stopped.</param>
/// <param name="On">The run with the session started and its stream read.</param>
public sealed record OverheadComparison(ScenarioResult Off, ScenarioResult On)
{
    /// <summary>Commits a second with the session, relative to without (-0.03 = 3 % fewer), or null when nothing committed without it.</summary>
    public double? CommitsPerSecondChange => Off.CommitsPerSecond > 0 ? (On.CommitsPerSecond / Off.CommitsPerSecond) - 1 : null;

    /// <summary>The mean commit latency with the session minus without, milliseconds.</summary>
    public double? MeanDeltaMs => Off.Latency is { } off && On.Latency is { } on ? on.MeanMs - off.MeanMs : null;

    /// <summary>The median's difference, milliseconds.</summary>
    public double? P50DeltaMs => Off.Latency is { } off && On.Latency is { } on ? on.P50Ms - off.P50Ms : null;

    /// <summary>The 99th percentile's difference, milliseconds.</summary>
    public double? P99DeltaMs => Off.Latency is { } off && On.Latency is { } on ? on.P99Ms - off.P99Ms : null;

    /// <summary>Every off/on pair of <paramref name="scenarios"/>, in order (an off run followed by its on run).</summary>
    public static IReadOnlyList<OverheadComparison> Pairs(IReadOnlyList<ScenarioResult> scenarios)
    {
        var pairs = new List<OverheadComparison>();
        for (var i = 0; i + 1 < scenarios.Count; i++)
        {
            if (scenarios[i].Phase == SessionPhase.Off && scenarios[i + 1].Phase == SessionPhase.On && scenarios[i].Scenario == scenarios[i + 1].Scenario)
            {
                pairs.Add(new OverheadComparison(scenarios[i], scenarios[i + 1]));
            }
        }

        return pairs;
    }
}

/// <summary>What a whole run did.</summary>
/// <param name="Scenarios">Each scenario that started, in order.</param>
/// <param name="Outcome">How the run ended.</param>
/// <param name="Problem">Why it failed (never a connection string), null otherwise.</param>
/// <param name="Dropped">Whether the database was dropped at the end.</param>
/// <param name="Notes">What the reader of the figures must know (with <c>--overhead</c>: the monitor's own session ran through both phases).</param>
public sealed record WorkloadResult(IReadOnlyList<ScenarioResult> Scenarios, WorkloadOutcome Outcome, string? Problem, bool Dropped, IReadOnlyList<string>? Notes = null)
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

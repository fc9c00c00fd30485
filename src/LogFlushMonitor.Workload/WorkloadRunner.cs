using Dapper;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.Workload;

/// <summary>
/// Drives a real SQL Server through the flush shapes of <see cref="WorkloadScenario"/>: creates its database (marked
/// as its own with an extended property; an existing database without the mark is refused, never altered), its
/// tables and sequences, runs each scenario with <see cref="WorkloadOptions.Sessions"/> connections for the duration
/// or the rows asked, and drops the database at the end when asked. Used by <c>logflushmonitor workload</c> and by
/// the real-server tests to produce the shapes they assert.
/// </summary>
/// <example>
/// <code>
/// var result = await WorkloadRunner.RunAsync(new WorkloadOptions
/// {
///     Server = SqlServerDataSource.FromConnectionString("test", cs), Database = "lfm_test", Scenarios = [WorkloadScenario.Autocommit], RowsPerScenario = 5000,
/// }, cancellationToken);
/// </code>
/// </example>
public sealed class WorkloadRunner
{
    private readonly WorkloadOptions _options;
    private readonly WorkloadConnector _connector;
    private volatile Live? _live;

    /// <summary>Prepares a run; throws <see cref="ArgumentException"/> listing every problem of <paramref name="options"/>.</summary>
    public WorkloadRunner(WorkloadOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Validate() is { Count: > 0 } problems)
        {
            throw new ArgumentException(string.Join(" ", problems), nameof(options));
        }

        _options = options;
        _connector = new WorkloadConnector(options);
    }

    /// <summary>The server as given in the connection string (safe to print).</summary>
    public string Server => _connector.Server;

    /// <summary>The scenario running now and its counts so far; null before the first and after the last.</summary>
    public WorkloadProgress? Progress => _live is { } l
        ? new WorkloadProgress(l.Scenario, _options.Time.GetElapsedTime(l.Started), _options.Duration, l.Counters.Commits, l.Counters.Rows, l.Counters.Errors)
        : null;

    /// <summary>Runs <paramref name="options"/> to the end.</summary>
    public static Task<WorkloadResult> RunAsync(WorkloadOptions options, CancellationToken cancellationToken) =>
        new WorkloadRunner(options).RunAsync(cancellationToken);

    /// <summary>
    /// Runs every scenario in turn. Cancelling <paramref name="cancellationToken"/> stops at once (open transactions
    /// are rolled back) and still returns what ran. Never throws for server problems: they are in the result.
    /// </summary>
    public async Task<WorkloadResult> RunAsync(CancellationToken cancellationToken)
    {
        var results = new List<ScenarioResult>();
        var notes = new List<string>();
        var outcome = WorkloadOutcome.Completed;
        string? problem = null;
        var prepared = false;
        try
        {
            try
            {
                await PrepareAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (SqlException e) when (!cancellationToken.IsCancellationRequested)
            {
                throw new WorkloadException($"preparing the database {_options.Database} failed: {WorkloadErrors.Describe(e)}");
            }

            prepared = true;
            foreach (var scenario in _options.Scenarios)
            {
                var (result, failure) = _options.Overhead
                    ? await RunWithAndWithoutSessionAsync(scenario, results, notes, cancellationToken).ConfigureAwait(false)
                    : await RunScenarioAsync(scenario, SessionPhase.None, cancellationToken).ConfigureAwait(false);
                results.Add(result);
                if (result.Outcome != WorkloadOutcome.Completed)
                {
                    (outcome, problem) = (result.Outcome, failure);
                    break;
                }
            }
        }
        catch (WorkloadException e)
        {
            (outcome, problem) = (e.IsUsage ? WorkloadOutcome.Refused : WorkloadOutcome.Failed, e.Message);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            outcome = WorkloadOutcome.Cancelled;
        }

        var dropped = false;
        if (_options.Drop && prepared)
        {
            try
            {
                // Not cancellable: Ctrl+C asked to stop the load, and --drop asked for a clean server afterwards.
                await AdminAsync(WorkloadSql.DropDatabase(_options.Database), CancellationToken.None).ConfigureAwait(false);
                dropped = true;
            }
            catch (WorkloadException e)
            {
                problem = (problem is null ? "" : problem + "; ") + $"the database {_options.Database} could not be dropped: {e.Message}";
                outcome = outcome == WorkloadOutcome.Cancelled ? outcome : WorkloadOutcome.Failed;
            }
        }

        return new WorkloadResult(results, outcome, problem, dropped, notes);
    }

    /// <summary>
    /// <c>--overhead</c>: the scenario with the event session stopped (its result added to <paramref name="results"/>), then
    /// the same with it started and its stream read (returned, with what the server measured the session cost). The
    /// session is dropped before, between and after, also on error or cancel.
    /// </summary>
    private async Task<(ScenarioResult Result, string? Failure)> RunWithAndWithoutSessionAsync(WorkloadScenario scenario, List<ScenarioResult> results, List<string> notes, CancellationToken cancellationToken)
    {
        var session = new OverheadSession(_options, Timeout);
        await using (session.ConfigureAwait(false))
        {
            try
            {
                await session.DropAsync(cancellationToken).ConfigureAwait(false);
                if (results.Count == 0 && await session.MonitorSessionRunsAsync(cancellationToken).ConfigureAwait(false))
                {
                    notes.Add($"the monitor's own event session {_options.Server.Options.SessionName} was running in both phases: its cost is in both, so the difference leaves it out. Stop the monitor to measure one session against none.");
                }
            }
            catch (SqlException e) when (!cancellationToken.IsCancellationRequested)
            {
                throw new WorkloadException($"the event session {session.Name} could not be prepared: {WorkloadErrors.Describe(e)}");
            }

            var (off, failure) = await RunScenarioAsync(scenario, SessionPhase.Off, cancellationToken).ConfigureAwait(false);
            if (off.Outcome != WorkloadOutcome.Completed)
            {
                return (off, failure);
            }

            results.Add(off);
            try
            {
                await session.StartAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is SqlException or NotSupportedException or InvalidOperationException && !cancellationToken.IsCancellationRequested)
            {
                throw new WorkloadException($"the event session {session.Name} could not be started (ALTER ANY EVENT SESSION, or the 2022 event-session grants, are needed): {(e is SqlException s ? WorkloadErrors.Describe(s) : e.Message)}");
            }

            var (on, onFailure) = await RunScenarioAsync(scenario, SessionPhase.On, cancellationToken).ConfigureAwait(false);
            string? cost;
            try
            {
                cost = await session.CostAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (SqlException e) when (!cancellationToken.IsCancellationRequested)
            {
                cost = $"the server would not say ({WorkloadErrors.Describe(e)})";
            }

            return (on with { SessionCost = cost }, onFailure);
        }
    }

    /// <summary>Creates the database when missing (and marks it), refuses one that is not the workload's, creates the objects, empties the tables.</summary>
    private async Task PrepareAsync(CancellationToken ct)
    {
        var database = _options.Database;
        int? id;
        await using (var master = await _connector.OpenAsync(_connector.MasterConnectionString, ct).ConfigureAwait(false))
        {
            id = await master.ExecuteScalarAsync<int?>(WorkloadSql.DatabaseId, new { database, ct }, commandTimeout: Timeout).ConfigureAwait(false);
            if (id is null)
            {
                await master.ExecuteAsync(WorkloadSql.CreateDatabase(database), ct, commandTimeout: Timeout).ConfigureAwait(false);
                await master.ExecuteAsync(WorkloadSql.SetSimpleRecovery(database), ct, commandTimeout: Timeout).ConfigureAwait(false);
            }
        }

        await using var connection = await _connector.OpenAsync(_connector.DatabaseConnectionString, ct).ConfigureAwait(false);
        var marker = new { name = WorkloadSql.MarkerName, value = "created by logflushmonitor workload", ct };
        if (id is null)
        {
            await connection.ExecuteAsync(WorkloadSql.AddMarker, marker, commandTimeout: Timeout).ConfigureAwait(false);
        }
        else if (await connection.ExecuteScalarAsync<int>(WorkloadSql.HasMarker, marker, commandTimeout: Timeout).ConfigureAwait(false) == 0)
        {
            throw new WorkloadException(
                $"--database {database} exists and was not created by logflushmonitor workload (it lacks the extended property {WorkloadSql.MarkerName}): "
                + "the workload alters and drops only its own database. Choose another name with --database.",
                isUsage: true);
        }

        await connection.ExecuteAsync(WorkloadSql.CreateObjects, ct, commandTimeout: Timeout).ConfigureAwait(false);
        await connection.ExecuteAsync(WorkloadSql.Truncate, ct, commandTimeout: Timeout).ConfigureAwait(false);
    }

    private async Task<(ScenarioResult Result, string? Failure)> RunScenarioAsync(WorkloadScenario scenario, SessionPhase phase, CancellationToken cancellationToken)
    {
        // Every scenario says which durability it wants: a database left FORCED by an earlier run must not delay the next.
        await AdminAsync(WorkloadSql.SetDelayedDurability(_options.Database, scenario == WorkloadScenario.DelayedDurability), cancellationToken).ConfigureAwait(false);

        var rowsPerTransaction = WorkloadScenarios.RowsPerTransaction(scenario, _options.BatchSize);
        var counters = new WorkloadCounters(_options.RowsPerScenario);
        using var duration = _options.Duration is { } d ? new CancellationTokenSource(d, _options.Time) : new CancellationTokenSource();
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, duration.Token);
        using var abort = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var started = _options.Time.GetTimestamp();
        var startedUtc = _options.Time.GetUtcNow().UtcDateTime;
        _live = new Live(scenario, counters, started);
        string? failure = null;
        var sessions = Enumerable.Range(1, _options.Sessions).Select(async n =>
        {
            try
            {
                await new WorkloadSession(scenario, rowsPerTransaction, n, _connector, counters, _options).RunAsync(stop.Token, abort.Token).ConfigureAwait(false);
            }
            catch (WorkloadException e)
            {
                // One session's fatal error ends the scenario: the others stop too.
                Interlocked.CompareExchange(ref failure, e.Message, null);
                await abort.CancelAsync().ConfigureAwait(false);
            }
        }).ToArray();
        await Task.WhenAll(sessions).ConfigureAwait(false);
        _live = null;

        var outcome = failure is not null ? WorkloadOutcome.Failed
            : cancellationToken.IsCancellationRequested ? WorkloadOutcome.Cancelled
            : WorkloadOutcome.Completed;
        var result = new ScenarioResult(scenario, _options.Sessions, rowsPerTransaction, _options.Time.GetElapsedTime(started),
            counters.Commits, counters.Rows, counters.Errors, counters.Reconnects, outcome, counters.Latency.Summary(), phase)
        {
            StartedUtc = startedUtc,
            EndedUtc = _options.Time.GetUtcNow().UtcDateTime,
        };
        return (result, failure);
    }

    /// <summary>One statement in master on a connection of its own (a server restart between scenarios costs nothing).</summary>
    private async Task AdminAsync(string sql, CancellationToken ct)
    {
        await using var master = await _connector.OpenAsync(_connector.MasterConnectionString, ct).ConfigureAwait(false);
        try
        {
            await master.ExecuteAsync(sql, ct, commandTimeout: Timeout).ConfigureAwait(false);
        }
        catch (SqlException e)
        {
            throw new WorkloadException(WorkloadErrors.Describe(e));
        }
    }

    private int Timeout => _connector.CommandTimeoutSeconds;

    private sealed record Live(WorkloadScenario Scenario, WorkloadCounters Counters, long Started);
}

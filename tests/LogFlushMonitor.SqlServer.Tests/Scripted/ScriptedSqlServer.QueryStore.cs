using System.Text.RegularExpressions;
using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>
/// Query Store as the views answer it (Microsoft's pages of sys.database_query_store_options,
/// sys.query_store_runtime_stats, _runtime_stats_interval, _plan, _query and _query_text; docs/sqlserver.md, "Query Store"):
/// per database, its state and statements whose runtime stats grow at every read of the statistics, in the current
/// interval (<see cref="ScriptedDatabase.QueryStoreInterval"/>), in the shapes the columns have (bigint hash read from
/// binary(8), bigint counts, nvarchar(max) text). A database is read through three-part names: the rule finds its name
/// in the statement (a bracket-quoted name, ']' doubled) and answers error 208 for a name it does not know.
/// </summary>
public sealed partial class ScriptedSqlServer
{
    private static readonly TdsColumn[] QueryStoreCandidateColumns =
        [TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("Name"), TdsColumn.Int("HasAccess"), TdsColumn.Int("CanView"), TdsColumn.Int("HasLogBytes")];

    private static readonly TdsColumn[] QueryStoreOptionColumns =
        [TdsColumn.NVarChar("ActualState"), TdsColumn.NVarChar("DesiredState"), TdsColumn.Int("ReadonlyReason")];

    private static readonly TdsColumn[] QueryStoreStatColumns =
        [TdsColumn.BigInt("QueryHash"), TdsColumn.BigInt("IntervalId"), TdsColumn.BigInt("LogBytes"), TdsColumn.BigInt("Executions"), TdsColumn.NVarCharMax("QueryText")];

    /// <summary>
    /// False: sys.query_store_runtime_stats has no avg_log_bytes_used (SQL Server 2016), which the catalog says: the
    /// statement that reads it would fail with error 207 (invalid column name).
    /// </summary>
    public bool QueryStoreHasLogBytes { get; set; } = true;

    private void AddQueryStoreRules()
    {
        Server.When("HAS_DBACCESS", QueryStoreCandidates);
        Server.When("OBJECT_ID(N'sys.query_store_runtime_stats')", QueryStoreCandidates); // Azure SQL Database's one-database form
        Server.When("sys.database_query_store_options", QueryStoreOptions);
        Server.When("sys.query_store_runtime_stats", QueryStoreStats);
    }

    private TdsResponse QueryStoreCandidates(TdsRequest request)
    {
        var permission = Regex.Match(request.Text, @"N'(VIEW DATABASE[A-Z ]*STATE)'") is { Success: true } m ? m.Groups[1].Value : null;
        var rows = new List<object?[]>();
        lock (_gate)
        {
            var azure = permission is null;
            foreach (var db in _databases.Where(d => azure ? d.Name == CurrentDatabase : d.Id > 4 && d.IsOnline))
            {
                var canView = azure || (db.QueryStoreCanView && (HeldLocked(permission!) || HeldLocked("VIEW SERVER STATE")
                    || (permission!.Contains("PERFORMANCE", StringComparison.Ordinal) && HeldLocked("VIEW SERVER PERFORMANCE STATE"))));
                rows.Add([db.Id, db.Name, azure || db.QueryStoreAccess ? 1 : 0, canView ? 1 : 0, QueryStoreHasLogBytes ? 1 : 0]);
            }
        }

        return Begin(request).ResultSet(QueryStoreCandidateColumns, rows);
    }

    private bool HeldLocked(string permission) =>
        KnownPermissions.Contains(permission) && HeldPermissions.Contains(permission) && !_denied.Contains(permission);

    private TdsResponse QueryStoreOptions(TdsRequest request)
    {
        lock (_gate)
        {
            if (QueryStoreDatabase(request) is not { } db)
            {
                return TdsResponse.Failure(208, "Invalid object name 'sys.database_query_store_options'.", state: 1, severity: 16);
            }

            return Begin(request).ResultSet(QueryStoreOptionColumns, [[db.QueryStoreState, db.QueryStoreState == "ERROR" ? "READ_WRITE" : db.QueryStoreState, db.QueryStoreState == "READ_ONLY" ? 65536 : 0]]);
        }
    }

    private TdsResponse QueryStoreStats(TdsRequest request)
    {
        lock (_gate)
        {
            if (!QueryStoreHasLogBytes)
            {
                return TdsResponse.Failure(207, "Invalid column name 'avg_log_bytes_used'.", state: 1, severity: 16);
            }

            if (QueryStoreDatabase(request) is not { } db)
            {
                return TdsResponse.Failure(208, "Invalid object name 'sys.query_store_runtime_stats'.", state: 1, severity: 16);
            }

            var top = request.Parameters.TryGetValue("@top", out var t) && t is int n ? n : int.MaxValue;
            var withText = !request.Text.Contains("CAST(NULL AS nvarchar(1)) AS QueryText", StringComparison.Ordinal);
            foreach (var s in db.QueryStoreStatements)
            {
                s.Grow(db.QueryStoreInterval);
            }

            // Per hash and interval (the statements of one hash summed, as GROUP BY query_hash does), the top hashes by
            // their log bytes over the intervals, then each interval's total over every statement.
            var byHash = db.QueryStoreStatements.SelectMany(s => s.Intervals.Select(i => (s.Hash, Interval: i.Key, i.Value.Bytes, i.Value.Executions, s.Text)))
                .GroupBy(x => (x.Hash, x.Interval)).Select(g => (g.Key.Hash, g.Key.Interval, Bytes: g.Sum(x => x.Bytes), Executions: g.Sum(x => x.Executions), Text: g.First().Text)).ToList();
            var topHashes = byHash.GroupBy(x => x.Hash).OrderByDescending(g => g.Sum(x => x.Bytes)).ThenBy(g => g.Key).Take(top).Select(g => g.Key).ToHashSet();
            var rows = byHash.Where(x => topHashes.Contains(x.Hash))
                .Select(x => new object?[] { unchecked((long)x.Hash), x.Interval, (long)Math.Round(x.Bytes), x.Executions, withText ? x.Text : null }).ToList();
            rows.AddRange(byHash.GroupBy(x => x.Interval).Select(g => new object?[] { null, g.Key, (long)Math.Round(g.Sum(x => x.Bytes)), g.Sum(x => x.Executions), null }));
            return Begin(request).ResultSet(QueryStoreStatColumns, rows);
        }
    }

    /// <summary>The database a three-part name of <paramref name="request"/> names (<c>[name].sys.</c>), or the connection's database.</summary>
    private ScriptedDatabase? QueryStoreDatabase(TdsRequest request)
    {
        var m = Regex.Match(request.Text, @"FROM \[((?:[^\]]|\]\])*)\]\.sys\.");
        var name = m.Success ? m.Groups[1].Value.Replace("]]", "]", StringComparison.Ordinal) : CurrentDatabase;
        return _databases.FirstOrDefault(d => d.Name == name && d.IsOnline);
    }
}

/// <summary>
/// One statement of a scripted database's Query Store: at every read of the runtime stats its current interval grows by
/// <see cref="ExecutionsPerRead"/> executions of <see cref="LogBytesPerExecution"/> log bytes each (avg_log_bytes_used ×
/// count_executions, as a float product).
/// </summary>
/// <param name="Hash">sys.query_store_query.query_hash as a number (binary(8) read big-endian).</param>
/// <param name="Text">sys.query_store_query_text.query_sql_text.</param>
/// <param name="ExecutionsPerRead">count_executions added per read.</param>
/// <param name="LogBytesPerExecution">avg_log_bytes_used.</param>
public sealed record ScriptedStatement(ulong Hash, string? Text, long ExecutionsPerRead, double LogBytesPerExecution)
{
    /// <summary>The statement's figures per runtime_stats_interval_id.</summary>
    public Dictionary<long, (double Bytes, long Executions)> Intervals { get; } = [];

    internal void Grow(long interval)
    {
        var (bytes, executions) = Intervals.GetValueOrDefault(interval);
        Intervals[interval] = (bytes + (ExecutionsPerRead * LogBytesPerExecution), executions + ExecutionsPerRead);
    }
}

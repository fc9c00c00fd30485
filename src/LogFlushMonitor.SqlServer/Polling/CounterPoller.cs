using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads the Databases object of sys.dm_os_performance_counters: names trimmed, the object matched on the part
/// after the colon (SQLServer: or MSSQL$NAME:), base rows paired with their fraction or average row, internal and
/// filtered-out instances skipped. The arithmetic is left to Core, driven by cntr_type. By default the statement names
/// the log counters (<see cref="CounterSelection.DefaultCounters"/>); with more selected it reads the whole object and
/// keeps the selected counters here (and the base rows their fractions and averages need).
/// </summary>
internal sealed class CounterPoller(PollContext context, DatabaseFilter filter, CounterSelection selection)
{
    /// <summary>The object we read, after the instance prefix.</summary>
    public const string DatabasesObject = "Databases";

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = (selection.IsDefaultOnly
            ? await connection.QueryAsync<CounterRow>(
                DmvSql.PerformanceCounters, new { includeAll = filter.IncludeAll, include = filter.Include, exclude = filter.Exclude, cancellationToken },
                commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<CounterRow>(
                DmvSql.AllDatabaseCounters, new { includeAll = filter.IncludeAll, include = filter.Include, exclude = filter.Exclude, cancellationToken },
                commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)).AsList();
        var now = context.UtcNow;
        var bases = new Dictionary<(string Instance, string Key), long>();
        var values = new List<(string Counter, string Instance, long Value, int Type)>(rows.Count);
        foreach (var row in rows)
        {
            var objectName = row.ObjectName.Trim();
            var colon = objectName.IndexOf(':', StringComparison.Ordinal);
            if (!string.Equals(colon < 0 ? objectName : objectName[(colon + 1)..], DatabasesObject, StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            var instance = row.InstanceName.Trim();
            if (!filter.WatchesCounterInstance(instance))
            {
                continue;
            }

            var counter = row.CounterName.Trim();
            if (row.Type == PerfCounterType.LargeRawBase)
            {
                bases[(instance, BaseKey(counter, isBase: true))] = row.Value;
            }
            else if (selection.Matches(counter))
            {
                values.Add((counter, instance, row.Value, row.Type));
            }
        }

        foreach (var (counter, instance, value, type) in values)
        {
            long baseValue = 0;
            if (type is PerfCounterType.LargeRawFraction or PerfCounterType.AverageBulk)
            {
                // Without its base a fraction means nothing: Core treats base 0 as "no value".
                bases.TryGetValue((instance, BaseKey(counter, isBase: false)), out baseValue);
            }

            context.Sink.OnCounter(new CounterSample(context.Instance, now, DatabasesObject, counter, instance, value, type, baseValue));
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.Counters));
    }

    /// <summary>
    /// What a counter and its base have in common: "Log Cache Hit Ratio" / "Log Cache Hit Ratio Base"; the engine
    /// also writes "base" in lower case, drops " (ms)" and spells "Avg" as "Average" in some base names. A few pairs share
    /// no name at all (<see cref="UnlikeBases"/>).
    /// </summary>
    internal static string BaseKey(string counter, bool isBase)
    {
        if (!isBase && UnlikeBases.TryGetValue(counter, out var baseName))
        {
            return BaseKey(baseName, isBase: true);
        }

        var key = counter.ToLowerInvariant();
        if (isBase && key.EndsWith(" base", StringComparison.Ordinal))
        {
            key = key[..^5];
        }

        key = key.Replace(" (ms)", "", StringComparison.Ordinal);
        return key.StartsWith("average ", StringComparison.Ordinal) ? "avg " + key[8..] : key;
    }

    /// <summary>
    /// Databases counters whose base row is named otherwise. "Avg Dist From EOL/LP Request" goes with "Log Pool Requests
    /// Base" (measured on SQL Server 2017, 2022 and 2025: rudi-bruchez/sql-auditor, docs/performance-counters-spec.md);
    /// "XTP Controller DLC Latency/Fetch" with "XTP Controller DLC Latency Base" (both names in Microsoft's "SQL Server,
    /// Databases object" page; the pairing is a belief, docs/sqlserver.md).
    /// </summary>
    private static readonly Dictionary<string, string> UnlikeBases = new(StringComparer.OrdinalIgnoreCase)
    {
        ["Avg Dist From EOL/LP Request"] = "Log Pool Requests Base",
        ["XTP Controller DLC Latency/Fetch"] = "XTP Controller DLC Latency Base",
    };

    internal sealed class CounterRow
    {
        public string ObjectName { get; set; } = "";

        public string CounterName { get; set; } = "";

        public string InstanceName { get; set; } = "";

        public long Value { get; set; }

        public int Type { get; set; }
    }
}

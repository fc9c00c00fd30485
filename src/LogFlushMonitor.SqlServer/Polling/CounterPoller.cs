using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads the Databases object of sys.dm_os_performance_counters: names trimmed, the object matched on the part
/// after the colon (SQLServer: or MSSQL$NAME:), base rows paired with their fraction or average row, internal and
/// filtered-out instances skipped. The arithmetic is left to Core, driven by cntr_type. By default the statement names
/// the log counters (<see cref="CounterSelection.DefaultCounters"/>); with more selected it reads the whole object and
/// keeps the selected counters here (and the base rows their fractions and averages need).
/// </summary>
/// <remarks>
/// Azure SQL Database (engine edition 5) and Managed Instance (8) name a database's counter instance by its physical
/// database name, a GUID, sometimes with an identifier appended: those are mapped to database names through
/// sys.databases (on the first 36 characters, as Telegraf does) before anything is filtered, and an instance that maps
/// to no database is not exported. On SQL Database only the current database is kept: an elastic pool lists its
/// neighbours too, and _Total sums them with the internal instances (DBA Dash keeps no system or internal name there).
/// </remarks>
internal sealed class CounterPoller(
    PollContext context, DatabaseFilter filter, CounterSelection selection, ILogger logger, Func<IReadOnlyList<DatabaseInfo>?>? databases = null, bool confirmMissing = true)
{
    /// <summary>The object we read, after the instance prefix.</summary>
    public const string DatabasesObject = "Databases";

    /// <summary>SERVERPROPERTY('EngineEdition') of Azure SQL Database.</summary>
    internal const int AzureSqlDatabase = 5;

    /// <summary>SERVERPROPERTY('EngineEdition') of Azure SQL Managed Instance.</summary>
    internal const int AzureManagedInstance = 8;

    private const int GuidLength = 36;

    private readonly NullCells _nulls = new(context, logger, "sys.dm_os_performance_counters");
    private bool _unmatchedLogged;
    private HashSet<string> _missingBefore = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>
    /// Rows of the Databases object the last poll read, before any filter, or -1 before the first poll. Zero means the
    /// instance's performance counters are not registered (Microsoft's page of the DMV; setup error 3409): every counter
    /// series is missing, which a quiet server never causes (the rows exist at zero).
    /// </summary>
    public int ObjectRows { get; private set; } = -1;

    /// <summary>
    /// Watched databases that should have counter rows and had none in the last two polls (one poll could race a
    /// CREATE or DROP): online in sys.databases (neither AUTO_CLOSE nor a snapshot), the current database on SQL
    /// Database, or a name of IncludeDatabases that is no database at all ("name (no such database)").
    /// </summary>
    public IReadOnlyList<string> MissingDatabases { get; private set; } = [];

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var identity = (await connection.QueryAsync<IdentityRow>(DmvSql.ServerIdentity, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false))
            .FirstOrDefault() ?? new IdentityRow();
        var physical = identity.EngineEdition is AzureSqlDatabase or AzureManagedInstance
            ? await ReadPhysicalNamesAsync(connection, cancellationToken).ConfigureAwait(false)
            : null;

        // The lists are applied to the rows below (after mapping, where instance names are physical names): no
        // parameter, so a list of any length works.
        var rows = (selection.IsDefaultOnly
            ? await connection.QueryAsync<CounterRow>(DmvSql.PerformanceCounters, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<CounterRow>(DmvSql.AllDatabaseCounters, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)).AsList();
        var now = context.UtcNow;
        var bases = new Dictionary<(string Instance, string Key), (long Value, bool Exact)>();
        var values = new Dictionary<(string Counter, string Instance), (long Value, int Type, bool Exact)>();
        var replicaValues = new Dictionary<(string Counter, string Instance), (long Value, int Type)>();
        HashSet<string>? unmatched = null;
        var seen = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var objectRows = 0;
        foreach (var row in rows)
        {
            if (_nulls.Skip(("object_name", row.ObjectName is null), ("counter_name", row.CounterName is null), ("instance_name", row.InstanceName is null),
                ("cntr_value", row.Value is null), ("cntr_type", row.Type is null)))
            {
                continue;
            }

            var objectName = row.ObjectName!.Trim();
            var colon = objectName.IndexOf(':', StringComparison.Ordinal);
            var objectPart = colon < 0 ? objectName : objectName[(colon + 1)..];
            // The Database Replica rows (availability-group databases) ride along; the coverage checks are the Databases object's.
            var replica = string.Equals(objectPart, DatabaseReplicaCounters.Object, StringComparison.OrdinalIgnoreCase);
            if (!replica && !string.Equals(objectPart, DatabasesObject, StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            objectRows += replica ? 0 : 1;
            var raw = row.InstanceName!.Trim();
            var (instance, exact) = physical is null ? (raw, true) : MapPhysical(raw, physical);
            if (instance is null)
            {
                (unmatched ??= new(StringComparer.OrdinalIgnoreCase)).Add(raw);
                continue;
            }

            if (identity.EngineEdition == AzureSqlDatabase && !string.Equals(instance, identity.CurrentDatabase, StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            if (!filter.WatchesCounterInstance(instance))
            {
                continue;
            }

            if (replica)
            {
                // Named counters only, per database: the object's _Total is no database and no family reads it.
                var name = row.CounterName!.Trim();
                if (instance != DatabasesCounters.TotalInstance && selection.Matches(name))
                {
                    replicaValues[(name, instance)] = (row.Value!.Value, row.Type!.Value);
                }

                continue;
            }

            seen.Add(instance);

            // Two rows that map to one database (a GUID with and without a suffix): the exact physical name wins.
            var counter = row.CounterName!.Trim();
            var (rowValue, rowType) = (row.Value!.Value, row.Type!.Value);
            if (rowType == PerfCounterType.LargeRawBase)
            {
                var key = (instance, BaseKey(counter, isBase: true));
                if (!bases.TryGetValue(key, out var known) || (exact && !known.Exact))
                {
                    bases[key] = (rowValue, exact);
                }
            }
            else if (selection.Matches(counter))
            {
                var key = (counter, instance);
                if (!values.TryGetValue(key, out var known) || (exact && !known.Exact))
                {
                    values[key] = (rowValue, rowType, exact);
                }
            }
        }

        if (unmatched is not null && !_unmatchedLogged)
        {
            _unmatchedLogged = true;
            SqlServerLog.CounterInstancesUnmatched(logger, context.Instance, unmatched.Count);
        }

        foreach (var ((counter, instance), (value, type, _)) in values)
        {
            long baseValue = 0;
            if (type is PerfCounterType.LargeRawFraction or PerfCounterType.AverageBulk)
            {
                // Without its base a fraction means nothing: Core treats base 0 as "no value".
                baseValue = bases.TryGetValue((instance, BaseKey(counter, isBase: false)), out var b) ? b.Value : 0;
            }

            context.Sink.OnCounter(new CounterSample(context.Instance, now, DatabasesObject, counter, instance, value, type, baseValue));
        }

        foreach (var ((counter, instance), (value, type)) in replicaValues)
        {
            context.Sink.OnCounter(new CounterSample(context.Instance, now, DatabaseReplicaCounters.Object, counter, instance, value, type, 0));
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.Counters));
        ObjectRows = objectRows;
        var missing = objectRows == 0 ? new HashSet<string>(StringComparer.OrdinalIgnoreCase) : Expected(identity).Where(e => !seen.Contains(e.Name)).Select(e => e.Label).ToHashSet(StringComparer.OrdinalIgnoreCase);
        MissingDatabases = [.. missing.Where(m => !confirmMissing || _missingBefore.Contains(m)).Order(StringComparer.OrdinalIgnoreCase)];
        _missingBefore = missing;
    }

    /// <summary>The watched databases that should have counter rows now, with how to name them when they have none.</summary>
    private IEnumerable<(string Name, string Label)> Expected(IdentityRow identity)
    {
        if (identity.EngineEdition == AzureSqlDatabase)
        {
            if (identity.CurrentDatabase is { } current && filter.Watches(current))
            {
                yield return (current, current);
            }

            yield break;
        }

        if (databases?.Invoke() is not { Count: > 0 } known)
        {
            yield break; // not read yet: nothing to compare with
        }

        foreach (var d in known)
        {
            if (d.State == "ONLINE" && !d.AutoClose && !d.IsSnapshot && filter.Watches(d.Name))
            {
                yield return (d.Name, d.Name);
            }
        }

        foreach (var name in filter.Include.Where(n => !known.Any(d => string.Equals(d.Name, n, StringComparison.OrdinalIgnoreCase)) && filter.Watches(n)))
        {
            yield return (name, name + " (no such database)");
        }
    }

    /// <summary>Physical name (a GUID) to database name; master is left out: on SQL Database its physical name is the user database's.</summary>
    private async Task<Dictionary<string, string>> ReadPhysicalNamesAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var map = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (var d in await connection.QueryAsync<PhysicalNameRow>(DmvSql.PhysicalDatabaseNames, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false))
        {
            if (d.Name is { } name && d.PhysicalName is { } physical && !string.Equals(name, "master", StringComparison.OrdinalIgnoreCase))
            {
                map.TryAdd(physical.Trim(), name);
            }
        }

        return map;
    }

    /// <summary>
    /// The database a counter instance stands for on Azure: a name that is no GUID stays as it is (_Total, master,
    /// tempdb, the internal instances); a GUID maps through its first 36 characters, or to nothing (null).
    /// </summary>
    internal static (string? Name, bool Exact) MapPhysical(string raw, IReadOnlyDictionary<string, string> physical)
    {
        if (raw.Length < GuidLength || !Guid.TryParse(raw.AsSpan(0, GuidLength), out _))
        {
            return (raw, true);
        }

        return physical.TryGetValue(raw[..GuidLength], out var name) ? (name, raw.Length == GuidLength) : (null, false);
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

    internal sealed class IdentityRow
    {
        public int? EngineEdition { get; set; }

        public string? CurrentDatabase { get; set; }
    }

    internal sealed class PhysicalNameRow
    {
        public string? Name { get; set; }

        public string? PhysicalName { get; set; }
    }

    /// <summary>One row as read: every cell nullable, so a NULL is seen and skipped (<see cref="NullCells"/>), not thrown.</summary>
    internal sealed class CounterRow
    {
        public string? ObjectName { get; set; }

        public string? CounterName { get; set; }

        public string? InstanceName { get; set; }

        public long? Value { get; set; }

        public int? Type { get; set; }
    }
}

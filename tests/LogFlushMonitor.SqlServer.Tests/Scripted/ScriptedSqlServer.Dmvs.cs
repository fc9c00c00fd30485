using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

public sealed partial class ScriptedSqlServer
{
    private static readonly TdsColumn[] CounterColumns =
        [TdsColumn.NVarChar("ObjectName"), TdsColumn.NVarChar("CounterName"), TdsColumn.NVarChar("InstanceName"), TdsColumn.BigInt("Value"), TdsColumn.Int("Type")];

    private static readonly TdsColumn[] WaitColumns =
        [TdsColumn.NVarChar("WaitType"), TdsColumn.BigInt("WaitingTasks"), TdsColumn.BigInt("WaitTimeMs"), TdsColumn.BigInt("MaxWaitTimeMs"), TdsColumn.BigInt("SignalWaitTimeMs")];

    private static readonly TdsColumn[] FileColumns =
        [TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("DatabaseName"), TdsColumn.Int("FileId"), TdsColumn.BigInt("NumWrites"), TdsColumn.BigInt("BytesWritten"), TdsColumn.BigInt("IoStallWriteMs")];

    private static readonly TdsColumn[] DatabaseColumns =
        [TdsColumn.Int("Id"), TdsColumn.NVarChar("Name"), TdsColumn.NVarChar("State"), TdsColumn.NVarChar("RecoveryModel"), TdsColumn.NVarChar("DelayedDurability")];

    /// <summary>Extra rows appended to every counters answer (object, counter, instance, value, type), e.g. an average and its base.</summary>
    public List<(string Object, string Counter, string Instance, long Value, int Type)> ExtraCounters { get; } = [];

    /// <summary>nchar(128) as the DMV returns it: blank-padded.</summary>
    private static string Pad(string s) => s.PadRight(128);

    private void AddDmvRules()
    {
        Server.When("sys.dm_os_performance_counters", Counters);
        Server.When("sys.dm_os_wait_stats", Waits);
        Server.When("sys.dm_db_wait_stats", Waits);
        Server.When("sys.dm_io_virtual_file_stats", Files);
        Server.When("sys.dm_os_sys_info", r => Begin(r).ResultSet(
            [TdsColumn.DateTime2("StartTimeLocal"), TdsColumn.DateTime2("StartTimeUtc")], [[_startLocal, StartTimeUtc]]));
        Server.When("dropped_event_count", XeDrops);
        Server.When("FROM sys.databases", Catalog);
    }

    private TdsResponse Counters(TdsRequest request)
    {
        var (includeAll, include, exclude) = Filters(request);
        var rows = new List<object?[]>();
        lock (_gate)
        {
            var obj = Pad((InstanceName is null ? "SQLServer" : "MSSQL$" + InstanceName) + ":Databases");
            long flushes = 0, bytes = 0, waits = 0, waitMs = 0;
            void Add(string instance, long f, long b, long w, long ms, long pct)
            {
                if (instance != "_Total" && ((!includeAll && !include.Contains(instance)) || exclude.Contains(instance)))
                {
                    return;
                }

                rows.Add([obj, Pad("Log Flushes/sec"), Pad(instance), f, PerfCounterType.BulkCount]);
                rows.Add([obj, Pad("Log Bytes Flushed/sec"), Pad(instance), b, PerfCounterType.BulkCount]);
                rows.Add([obj, Pad("Log Flush Waits/sec"), Pad(instance), w, PerfCounterType.BulkCount]);
                rows.Add([obj, Pad("Log Flush Wait Time"), Pad(instance), ms, PerfCounterType.BulkCount]);
                rows.Add([obj, Pad("Percent Log Used"), Pad(instance), pct, PerfCounterType.LargeRawCount]);
                rows.Add([obj, Pad("Log Cache Hit Ratio"), Pad(instance), 90L, PerfCounterType.LargeRawFraction]);
                rows.Add([obj, Pad("Log Cache Hit Ratio Base"), Pad(instance), 100L, PerfCounterType.LargeRawBase]);
            }

            foreach (var db in _databases.Where(d => d.IsOnline))
            {
                db.Flushes += db.FlushesPerPoll;
                db.BytesFlushed += db.FlushesPerPoll * db.BytesPerFlush;
                db.FlushWaits += db.FlushWaitsPerPoll;
                db.FlushWaitMs += db.FlushWaitMsPerPoll;
                Add(db.Name, db.Flushes, db.BytesFlushed, db.FlushWaits, db.FlushWaitMs, db.PercentLogUsed);
                flushes += db.Flushes;
                bytes += db.BytesFlushed;
                waits += db.FlushWaits;
                waitMs += db.FlushWaitMs;
            }

            if (ShowInternalInstances)
            {
                Add("mssqlsystemresource", 3, 300, 0, 0, 40);
                Add("model_msdb", 2, 200, 0, 0, 30);
            }

            Add("_Total", flushes, bytes, waits, waitMs, 0);
            rows.AddRange(ExtraCounters.Select(e => new object?[] { Pad(e.Object), Pad(e.Counter), Pad(e.Instance), e.Value, e.Type }));
        }

        return Begin(request).ResultSet(CounterColumns, rows);
    }

    private TdsResponse Waits(TdsRequest request)
    {
        var rows = new List<object?[]>();
        lock (_gate)
        {
            foreach (var (type, w) in _waits)
            {
                w.Tasks += w.TasksPerPoll;
                w.WaitMs += w.MsPerPoll;
                w.MaxMs = Math.Max(w.MaxMs, w.TasksPerPoll == 0 ? 0 : w.MsPerPoll / w.TasksPerPoll + 1);
                rows.Add([type, w.Tasks, w.WaitMs, w.MaxMs, w.WaitMs / 10]);
            }
        }

        return Begin(request).ResultSet(WaitColumns, rows);
    }

    private TdsResponse Files(TdsRequest request)
    {
        var (includeAll, include, exclude) = Filters(request);
        var rows = new List<object?[]>();
        lock (_gate)
        {
            foreach (var db in _databases.Where(d => d.IsOnline))
            {
                db.FileWrites += db.FlushesPerPoll;
                db.FileBytes += db.FlushesPerPoll * db.BytesPerFlush;
                db.FileStallMs += db.FlushWaitMsPerPoll;
                if ((includeAll || include.Contains(db.Name)) && !exclude.Contains(db.Name))
                {
                    rows.Add([db.Id, db.Name, db.LogFileId, db.FileWrites, db.FileBytes, db.FileStallMs]);
                }
            }
        }

        return Begin(request).ResultSet(FileColumns, rows);
    }

    private TdsResponse Catalog(TdsRequest request)
    {
        lock (_gate)
        {
            return Begin(request).ResultSet(DatabaseColumns,
                _databases.Select(d => new object?[] { d.Id, d.Name, d.State, d.RecoveryModel, d.DelayedDurability }).ToList());
        }
    }

    private TdsResponse XeDrops(TdsRequest request)
    {
        var name = request.Parameter("name") as string;
        lock (_gate)
        {
            var rows = name is not null && _xeSessions.TryGetValue(name, out var s)
                ? new List<object?[]> { new object?[] { s.CreateTime, s.DroppedEvents, s.DroppedBuffers } }
                : [];
            return Begin(request).ResultSet(
                [TdsColumn.DateTime2("CreateTime"), TdsColumn.BigInt("DroppedEvents"), TdsColumn.BigInt("DroppedBuffers")], rows);
        }
    }

    /// <summary>Emulates the WHERE clause on Dapper's expanded lists (@include1, @include2..., @exclude1...).</summary>
    private static (bool IncludeAll, HashSet<string> Include, HashSet<string> Exclude) Filters(TdsRequest request)
    {
        // No @includeAll: a statement without filters (Azure SQL Database reads only its own database).
        var all = !request.Parameters.TryGetValue("@includeAll", out var v) || v is true or 1 or (byte)1;
        var include = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var exclude = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (var (key, value) in request.Parameters)
        {
            if (value is not string s)
            {
                continue;
            }

            if (key.StartsWith("@include", StringComparison.Ordinal) && key != "@includeAll")
            {
                include.Add(s);
            }
            else if (key.StartsWith("@exclude", StringComparison.Ordinal))
            {
                exclude.Add(s);
            }
        }

        return (all, include, exclude);
    }
}

using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

public sealed partial class ScriptedSqlServer
{
    private static readonly TdsColumn[] CounterColumns =
        [TdsColumn.NVarChar("ObjectName"), TdsColumn.NVarChar("CounterName"), TdsColumn.NVarChar("InstanceName"), TdsColumn.BigInt("Value"), TdsColumn.Int("Type")];

    private static readonly TdsColumn[] WaitColumns =
        [TdsColumn.NVarChar("WaitType"), TdsColumn.BigInt("WaitingTasks"), TdsColumn.BigInt("WaitTimeMs"), TdsColumn.BigInt("MaxWaitTimeMs"), TdsColumn.BigInt("SignalWaitTimeMs")];

    private static readonly TdsColumn[] FileColumns =
        [TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("DatabaseName"), TdsColumn.Int("FileId"), TdsColumn.BigInt("NumWrites"), TdsColumn.BigInt("BytesWritten"), TdsColumn.BigInt("IoStallWriteMs"),
         TdsColumn.BigInt("IoStallQueuedWriteMs")];

    // What DmvSql.WriteLogWaiters returns: CAST(database_id AS int), DB_NAME (nvarchar(128)), COUNT (int), MAX(bigint).
    private static readonly TdsColumn[] WaiterColumns =
        [TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("DatabaseName"), TdsColumn.Int("Sessions"), TdsColumn.BigInt("LongestWaitMs")];

    // What DmvSql.LogWriters returns: CAST(database_id AS int), DB_NAME (nvarchar(128)), program_name (nvarchar(128), NULL
    // for a session without one), COUNT(*) (int), SUM of the bigint log columns (bigint).
    private static readonly TdsColumn[] LogWriterColumns =
        [TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("DatabaseName"), TdsColumn.NVarChar("ProgramName"), TdsColumn.Int("Transactions"),
         TdsColumn.BigInt("LogBytesUsed"), TdsColumn.BigInt("LogBytesReserved")];

    private static readonly TdsColumn[] DatabaseColumns =
        [TdsColumn.Int("Id"), TdsColumn.NVarChar("Name"), TdsColumn.NVarChar("State"), TdsColumn.NVarChar("RecoveryModel"), TdsColumn.NVarChar("DelayedDurability"),
         TdsColumn.Bit("AutoClose"), TdsColumn.Bit("IsSnapshot")];

    /// <summary>Extra rows appended to every counters answer (object, counter, instance, value, type), e.g. an average and its base; null is a NULL cell.</summary>
    public List<(string? Object, string? Counter, string? Instance, long? Value, int? Type)> ExtraCounters { get; } = [];

    /// <summary>Extra rows appended to every wait stats answer (wait type, tasks, wait ms, max ms, signal ms); null is a NULL cell.</summary>
    public List<(string? WaitType, long? Tasks, long? WaitMs, long? MaxMs, long? SignalMs)> ExtraWaits { get; } = [];

    /// <summary>Extra rows appended to every log file stats answer (database_id, DB_NAME, file_id, writes, bytes, stall ms); null is a NULL cell.</summary>
    public List<(int? DatabaseId, string? DatabaseName, int? FileId, long? Writes, long? Bytes, long? StallMs)> ExtraFiles { get; } = [];

    /// <summary>
    /// Open transactions that wrote log (sys.dm_tran_database_transactions with their session's program_name): one entry
    /// per transaction; the statement's answer groups them per database and program, as a server does.
    /// </summary>
    public List<(string Database, string? Program, long LogBytesUsed, long LogBytesReserved)> OpenTransactions { get; } = [];

    /// <summary>nchar(128) as the DMV returns it: blank-padded.</summary>
    private static string Pad(string s) => s.PadRight(128);

    /// <summary>
    /// The log device of <paramref name="database"/> stops completing writes: <paramref name="sessions"/> sessions have
    /// been waiting on WRITELOG for up to <paramref name="waited"/> (what sys.dm_os_waiting_tasks shows during a stall).
    /// </summary>
    public void StallLog(string database, int sessions, TimeSpan waited)
    {
        lock (_gate)
        {
            var db = _databases.Single(d => d.Name == database);
            db.WriteLogWaiting = sessions;
            db.WriteLogLongestWaitMs = (long)waited.TotalMilliseconds;
        }
    }

    private void AddDmvRules()
    {
        AddLogSpaceRules();
        AddHadrRules();
        AddGovernanceRules();
        Server.When("sys.dm_os_waiting_tasks", WaitingTasks);
        Server.When("sys.dm_tran_database_transactions", LogWriters);
        Server.When("sys.dm_os_performance_counters", Counters);
        Server.When("sys.dm_os_wait_stats", Waits);
        Server.When("sys.dm_db_wait_stats", Waits);
        // check --capture's hidden databases (before the file stats rule: the same view). The resource database's id is
        // always 32767 (Microsoft, "Resource database"); its two files, as a server lists them, write nothing.
        Server.When("NOT EXISTS (SELECT 1 FROM sys.databases", r => Begin(r).ResultSet(
            [TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("Name"), TdsColumn.Int("FileId"), TdsColumn.BigInt("NumWrites"), TdsColumn.BigInt("BytesWritten")],
            [[32767, "mssqlsystemresource", 1, 0L, 0L], [32767, "mssqlsystemresource", 2, 0L, 0L]]));
        Server.When("sys.dm_io_virtual_file_stats", Files);
        Server.When("sys.dm_os_sys_info", r => Begin(r).ResultSet(
            [TdsColumn.DateTime2("StartTimeLocal"), TdsColumn.DateTime2("StartTimeUtc")], [[_startLocal, StartTimeUtc]]));
        Server.When("event_fire_min_time", SessionEvents);
        Server.When("total_buffer_size", SessionBuffers);
        Server.When("dropped_event_count", XeDrops);
        Server.When("DB_NAME() AS CurrentDatabase", r => Begin(r).ResultSet(
            [TdsColumn.Int("EngineEdition"), TdsColumn.NVarChar("CurrentDatabase")], [[EngineEdition, CurrentDatabase]]));
        Server.When("physical_database_name", PhysicalNames);
        Server.When("FROM sys.databases", Catalog);
    }

    private TdsResponse Counters(TdsRequest request)
    {
        var named = NamedCounters(request.Text);
        var rows = new List<object?[]>();
        lock (_gate)
        {
            if (!CountersRegistered)
            {
                return Begin(request).ResultSet(CounterColumns, rows); // documented: no rows at all, no error
            }

            var obj = Pad(CounterObjectPrefix + ":Databases");
            var instances = new List<(string Name, Func<string, long> Value)>();
            foreach (var db in _databases.Where(d => d.IsOnline && d.HasCounters))
            {
                db.Flushes += db.FlushesPerPoll;
                db.BytesFlushed += db.FlushesPerPoll * db.BytesPerFlush;
                db.FlushWaits += db.FlushWaitsPerPoll;
                db.FlushWaitMs += db.FlushWaitMsPerPoll;
                var d = db;
                instances.Add((CounterInstanceName(db), c => DatabaseValue(d, c)));
            }

            if (ShowInternalInstances)
            {
                foreach (var i in InternalInstances)
                {
                    instances.Add((i.Name, c => InternalValue(i, c)));
                }
            }

            instances.AddRange(NeighbourInstances.Select(n => (n, (Func<string, long>)(c => NeighbourValue(c)))));

            // _Total sums every instance, the internal ones too (the Linux capture: 521 against 351 for the visible
            // databases); its Percent Log Used is used over size (the capture: 25 = 6,124 KB of 24,264 KB).
            var parts = instances.ToList();
            long Sum(string counter) => parts.Aggregate(0L, (sum, i) => unchecked(sum + i.Value(counter))); // wraps, as a forged row may
            instances.Add(("_Total", c => c == "Percent Log Used"
                ? Sum("Log File(s) Size (KB)") is > 0 and var size ? Sum("Log File(s) Used Size (KB)") * 100 / size : 0
                : Sum(c)));

            foreach (var (instance, value) in instances)
            {
                foreach (var (counter, type, _) in RealCounterShapes.DatabasesCounters)
                {
                    if (named is null || named.Contains(counter))
                    {
                        rows.Add([obj, Pad(counter), Pad(instance), value(counter), type]);
                    }
                }
            }

            rows.AddRange(ReplicaCounterRows(request.Text));
            rows.AddRange(ExtraCounters.Select(e => new object?[] { e.Object is null ? null : Pad(e.Object), e.Counter is null ? null : Pad(e.Counter), e.Instance is null ? null : Pad(e.Instance), e.Value, e.Type }));
        }

        return Begin(request).ResultSet(CounterColumns, rows);
    }

    /// <summary>The part of object_name before the colon: SQLServer, MSSQL$NAME, or on Azure MSSQL$ and a server identifier.</summary>
    private string CounterObjectPrefix => Shape is ServerShape.AzureSqlDatabase or ServerShape.AzureManagedInstance
        ? "MSSQL$" + (InstanceName ?? "E8B2D8D7C6A1")
        : InstanceName is null ? "SQLServer" : "MSSQL$" + InstanceName;

    /// <summary>The counter instance of a database: its name, or on Azure a user database's physical name (a GUID).</summary>
    private string CounterInstanceName(ScriptedDatabase db) =>
        Shape is ServerShape.AzureSqlDatabase or ServerShape.AzureManagedInstance && db.Id > 4 ? db.PhysicalName : db.Name;

    private IReadOnlyList<RealCounterShapes.InternalInstance> InternalInstances => Shape switch
    {
        ServerShape.Linux => RealCounterShapes.LinuxInternal,
        ServerShape.AzureSqlDatabase or ServerShape.AzureManagedInstance => RealCounterShapes.AzureInternal,
        _ => RealCounterShapes.WindowsInternal,
    };

    /// <summary>Azure SQL Database in an elastic pool: the counters of other databases of the pool, under their GUIDs.</summary>
    private IEnumerable<string> NeighbourInstances => Shape == ServerShape.AzureSqlDatabase
        ? ["0F1E2D3C-4B5A-4968-8776-A5B4C3D2E1F0", "1A2B3C4D-5E6F-4A0B-9C1D-2E3F4A5B6C7D.2"]
        : [];

    /// <summary>A user database's reading of one counter: the log counters from its state, a few others derived from them.</summary>
    private static long DatabaseValue(ScriptedDatabase db, string counter) => counter switch
    {
        "Log Flushes/sec" => db.Flushes,
        "Log Bytes Flushed/sec" => db.BytesFlushed,
        "Log Flush Waits/sec" => db.FlushWaits,
        "Log Flush Wait Time" => db.FlushWaitMs,
        "Percent Log Used" => db.PercentLogUsed,
        "Log File(s) Size (KB)" => db.LogSizeKb,
        "Log File(s) Used Size (KB)" => db.LogSizeKb * db.PercentLogUsed / 100,
        "Transactions/sec" => db.Flushes * 2,
        "Write Transactions/sec" => db.Flushes,
        "Log Cache Reads/sec" or "Log Pool Requests/sec" or "Log Pool Requests Base" => db.Flushes / 10,
        "Avg Dist From EOL/LP Request" => db.Flushes / 10 * 512,
        "Log Pool LogWriter Pushes/sec" or "Log Pool Hash Inserts/sec" => db.Flushes,
        "Log Cache Hit Ratio" => 90,
        "Log Cache Hit Ratio Base" => 100,
        "Data File(s) Size (KB)" => 16_384,
        "Log Growths" => 2,
        "Active Transactions" => 1,
        "Log Flush Write Time (ms)" => 1,
        "Log Pool Total Active Log Size" => 65_536,
        "Log Pool Total Shared Pool Size" => 131_072,
        _ => 0,
    };

    private static long InternalValue(RealCounterShapes.InternalInstance i, string counter) => counter switch
    {
        "Log Flushes/sec" => i.Flushes,
        "Log Bytes Flushed/sec" => i.BytesFlushed,
        "Log Flush Wait Time" => i.FlushWaitMs,
        "Log File(s) Size (KB)" => i.LogSizeKb,
        "Log File(s) Used Size (KB)" => i.LogUsedKb,
        "Percent Log Used" => i.LogSizeKb > 0 ? i.LogUsedKb * 100 / i.LogSizeKb : 0,
        "Log Growths" => i.LogGrowths,
        "Transactions/sec" => i.Transactions,
        "Write Transactions/sec" => i.WriteTransactions,
        "Data File(s) Size (KB)" => i.DataSizeKb,
        _ => 0,
    };

    private static long NeighbourValue(string counter) => counter switch
    {
        "Log Flushes/sec" => 5_000,
        "Log Bytes Flushed/sec" => 20_480_000,
        "Log File(s) Size (KB)" => 65_536,
        "Log File(s) Used Size (KB)" => 6_553,
        "Percent Log Used" => 10,
        _ => 0,
    };

    /// <summary>
    /// The counter names a statement asks for with <c>counter_name IN (N'...', ...)</c>, or null when it asks for every
    /// counter: the fake applies the statement's own list, so a name missing from it is missing from the answer.
    /// </summary>
    private static HashSet<string>? NamedCounters(string text)
    {
        const string Marker = "counter_name IN (";
        // The Databases object's own list: a list after an OR belongs to another object (the Database Replica clause).
        var databases = text.IndexOf(":Databases%'", StringComparison.Ordinal);
        var at = text.IndexOf(Marker, Math.Max(0, databases), StringComparison.OrdinalIgnoreCase);
        var or = databases < 0 ? -1 : text.IndexOf(" OR ", databases, StringComparison.Ordinal);
        if (at < 0 || (or >= 0 && or < at))
        {
            return null;
        }

        return InList(text, at + Marker.Length);
    }

    /// <summary>The N'...' names of a T-SQL <c>IN (...)</c> list whose first character is at <paramref name="start"/>.</summary>
    private static HashSet<string> InList(string text, int start)
    {
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var i = start;
        while (i < text.Length && text[i] != ')')
        {
            if (text[i] == 'N' && text[i + 1] == '\'')
            {
                var value = new System.Text.StringBuilder();
                for (i += 2; !(text[i] == '\'' && (i + 1 >= text.Length || text[i + 1] != '\'')); i++)
                {
                    value.Append(text[i]);
                    i += text[i] == '\'' ? 1 : 0; // '' is one quote
                }

                names.Add(value.ToString());
            }

            i++;
        }

        return names;
    }

    private TdsResponse Waits(TdsRequest request)
    {
        var rows = new List<object?[]>();
        // The statement's own filter: the types it names (wait_type IN (N'...', ...)) and the patterns it matches with
        // LIKE (the governor's forms). A type the statement does not ask for is not answered.
        const string Marker = "wait_type IN (";
        var at = request.Text.IndexOf(Marker, StringComparison.OrdinalIgnoreCase);
        var named = at < 0 ? [] : InList(request.Text, at + Marker.Length);
        var patterns = LikePatterns(request.Text, "wait_type LIKE N'");
        lock (_gate)
        {
            foreach (var (type, w) in _waits.Where(w => named.Contains(w.Key) || patterns.Any(p => p.IsMatch(w.Key))))
            {
                w.Tasks += w.TasksPerPoll;
                w.WaitMs += w.MsPerPoll;
                w.MaxMs = Math.Max(w.MaxMs, w.TasksPerPoll == 0 ? 0 : w.MsPerPoll / w.TasksPerPoll + 1);
                rows.Add([type, w.Tasks, w.WaitMs, w.MaxMs, w.WaitMs / 10]);
            }

            rows.AddRange(ExtraWaits.Select(e => new object?[] { e.WaitType, e.Tasks, e.WaitMs, e.MaxMs, e.SignalMs }));
        }

        // Azure SQL Database's statement names its database (DB_NAME(): the database the view is of) in every row.
        if (request.Text.Contains("DB_NAME() AS DatabaseName", StringComparison.Ordinal))
        {
            return Begin(request).ResultSet([.. WaitColumns, TdsColumn.NVarChar("DatabaseName")], [.. rows.Select(r => (object?[])[.. r, CurrentDatabase])]);
        }

        return Begin(request).ResultSet(WaitColumns, rows);
    }

    /// <summary>
    /// Each <c>LIKE N'...'</c> pattern after <paramref name="marker"/> in <paramref name="text"/>, as T-SQL matches it: <c>%</c>
    /// any run, <c>_</c> one character, <c>[_]</c> a literal underscore (ignoring case, as a case-insensitive collation does).
    /// </summary>
    internal static List<System.Text.RegularExpressions.Regex> LikePatterns(string text, string marker)
    {
        var patterns = new List<System.Text.RegularExpressions.Regex>();
        for (var at = text.IndexOf(marker, StringComparison.OrdinalIgnoreCase); at >= 0; at = text.IndexOf(marker, at + 1, StringComparison.OrdinalIgnoreCase))
        {
            var start = at + marker.Length;
            var end = text.IndexOf('\'', start);
            var like = text[start..end];
            var regex = new System.Text.StringBuilder("^");
            for (var i = 0; i < like.Length; i++)
            {
                if (like[i] == '[' && i + 2 < like.Length && like[i + 2] == ']')
                {
                    regex.Append(System.Text.RegularExpressions.Regex.Escape(like[i + 1].ToString()));
                    i += 2;
                }
                else
                {
                    regex.Append(like[i] switch { '%' => ".*", '_' => ".", var c => System.Text.RegularExpressions.Regex.Escape(c.ToString()) });
                }
            }

            patterns.Add(new System.Text.RegularExpressions.Regex(regex.Append('$').ToString(), System.Text.RegularExpressions.RegexOptions.IgnoreCase));
        }

        return patterns;
    }

    private TdsResponse Files(TdsRequest request)
    {
        var rows = new List<object?[]>();
        lock (_gate)
        {
            foreach (var db in _databases.Where(d => d.IsOnline))
            {
                db.FileWrites += db.FlushesPerPoll;
                db.FileBytes += db.FlushesPerPoll * db.BytesPerFlush;
                db.FileStallMs += db.FlushWaitMsPerPoll;
                db.FileQueuedMs += db.QueuedWriteMsPerPoll;
                // Azure SQL Database's statement reads DB_ID()'s files only.
                var currentOnly = request.Text.Contains("DB_ID()", StringComparison.OrdinalIgnoreCase);
                if (!currentOnly || db.Name == CurrentDatabase)
                {
                    rows.Add([db.Id, db.Name, db.LogFileId, db.FileWrites, db.FileBytes, db.FileStallMs, db.FileQueuedMs]);
                }
            }

            rows.AddRange(ExtraFiles.Select(e => new object?[] { e.DatabaseId, e.DatabaseName, e.FileId, e.Writes, e.Bytes, e.StallMs, 0L }));
        }

        return Begin(request).ResultSet(FileColumns, rows);
    }

    /// <summary>
    /// The waiting tasks on WRITELOG grouped per database, as a server returns them: only databases where somebody
    /// waits (GROUP BY over the waiting tasks). Azure SQL Database's statement (DB_ID()) answers one row for its
    /// database, "sales", with 0 and 0 when nobody waits.
    /// </summary>
    private TdsResponse WaitingTasks(TdsRequest request)
    {
        lock (_gate)
        {
            if (request.Text.Contains("DB_ID()", StringComparison.Ordinal))
            {
                var own = _databases.Single(d => d.Name == "sales");
                return Begin(request).ResultSet(WaiterColumns, [[own.Id, own.Name, own.WriteLogWaiting, own.WriteLogLongestWaitMs]]);
            }

            return Begin(request).ResultSet(WaiterColumns,
                _databases.Where(d => d.IsOnline && d.WriteLogWaiting > 0).Select(d => new object?[] { d.Id, d.Name, d.WriteLogWaiting, d.WriteLogLongestWaitMs }).ToList());
        }
    }

    /// <summary>DmvSql.LogWriters: the open transactions grouped per database and program_name; only those that hold log.</summary>
    private TdsResponse LogWriters(TdsRequest request)
    {
        lock (_gate)
        {
            var rows = OpenTransactions.Where(t => t.LogBytesUsed > 0 || t.LogBytesReserved > 0)
                .GroupBy(t => (t.Database, t.Program))
                .Select(g =>
                {
                    var db = _databases.Single(d => d.Name == g.Key.Database);
                    return new object?[] { db.Id, db.Name, g.Key.Program, g.Count(), g.Sum(t => t.LogBytesUsed), g.Sum(t => t.LogBytesReserved) };
                }).ToList();
            return Begin(request).ResultSet(LogWriterColumns, rows);
        }
    }

    private TdsResponse Catalog(TdsRequest request)
    {
        lock (_gate)
        {
            return Begin(request).ResultSet(DatabaseColumns,
                _databases.Select(d => new object?[] { d.Id, d.Name, d.State, d.RecoveryModel, d.DelayedDurability, d.AutoClose, false }).ToList());
        }
    }

    /// <summary>
    /// sys.databases.physical_database_name: on Azure a user database's GUID (its counter instance name); on SQL Database
    /// only master and the current database are listed, and master's physical name is the user database's GUID (a
    /// comment in Telegraf's azuresqldbqueries.go; Telegraf PR 6787). Elsewhere the name itself.
    /// </summary>
    private TdsResponse PhysicalNames(TdsRequest request)
    {
        lock (_gate)
        {
            var current = _databases.FirstOrDefault(d => d.Name == CurrentDatabase);
            var rows = Shape switch
            {
                ServerShape.AzureSqlDatabase => _databases.Where(d => d.Name == "master" || d.Name == CurrentDatabase)
                    .Select(d => new object?[] { d.Name, d.Name == "master" ? current?.PhysicalName ?? d.Name : d.PhysicalName }),
                ServerShape.AzureManagedInstance => _databases.Select(d => new object?[] { d.Name, d.Id > 4 ? d.PhysicalName : d.Name }),
                _ => _databases.Select(d => new object?[] { d.Name, d.Name }),
            };
            return Begin(request).ResultSet([TdsColumn.NVarChar("Name"), TdsColumn.NVarChar("PhysicalName")], rows.ToList());
        }
    }

    /// <summary>
    /// Whether trace flag 9708 is on: sys.dm_xe_session_events then fills event_fire_count and event_fire_average_time
    /// (each answer adds 100 fires of 3 µs per event); off, they read 0 while the minimum and maximum are kept (Microsoft's
    /// page of the view).
    /// </summary>
    public bool TraceFlag9708 { get; set; }

    private long _sessionEventReads;

    /// <summary>The running sessions the statement's name filter takes: @name and its histogram sessions @name_h….</summary>
    private List<string> SessionsNamed(TdsRequest request)
    {
        var name = request.Parameter("name") as string ?? "";
        lock (_gate)
        {
            return [.. _xeSessions.Keys.Where(s => s == name || (s.Length > name.Length + 2 && s.StartsWith(name + "_h", StringComparison.Ordinal))).Order(StringComparer.Ordinal)];
        }
    }

    /// <summary>sys.dm_xe_sessions: 4 MB of buffers in 3 regular buffers, none pending, per running session (the default MAX_MEMORY).</summary>
    private TdsResponse SessionBuffers(TdsRequest request) => Begin(request).ResultSet(
        [TdsColumn.NVarChar("SessionName"), TdsColumn.BigInt("BufferBytes"), TdsColumn.BigInt("RegularBuffers"), TdsColumn.BigInt("PendingBuffers")],
        [.. SessionsNamed(request).Select(s => new object?[] { s, 4_194_304L, 3L, 0L })]);

    /// <summary>sys.dm_xe_session_events of each running session: its flush events (and the wait event for the stream's).</summary>
    private TdsResponse SessionEvents(TdsRequest request)
    {
        var reads = Interlocked.Increment(ref _sessionEventReads);
        var rows = new List<object?[]>();
        foreach (var session in SessionsNamed(request))
        {
            string[] events = session.Contains("_h", StringComparison.Ordinal) ? ["log_flush_start"] : ["log_flush_start", "log_flush_complete", "wait_completed"];
            foreach (var e in events)
            {
                rows.Add(TraceFlag9708 ? [session, e, 100 * reads, 3L, 1L, 40L] : [session, e, 0L, 0L, 1L, 40L]);
            }
        }

        return Begin(request).ResultSet(
            [TdsColumn.NVarChar("SessionName"), TdsColumn.NVarChar("EventName"), TdsColumn.BigInt("FireCount"), TdsColumn.BigInt("AverageUs"), TdsColumn.BigInt("MinUs"), TdsColumn.BigInt("MaxUs")],
            rows);
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
}

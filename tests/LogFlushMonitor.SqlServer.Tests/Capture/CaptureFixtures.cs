using System.Globalization;
using System.IO.Compression;
using System.Text.Json.Nodes;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Check.Capture;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.XEvent.TestSupport;

namespace LogFlushMonitor.SqlServer.Tests.Capture;

/// <summary>
/// The fixtures of tests/testdata/captures transcribed from real published result sets (issue 30 item 2), written in the
/// format <c>check --capture</c> writes (<see cref="CaptureArchive"/>) so the replay serves them as it serves a capture a
/// user sends. Each value is the source's, except where a comment says it is constructed (what a source does not give,
/// made consistent with what it does); the folder's README names every source, with the file and commit.
/// <c>LFM_UPDATE_CAPTURE=1</c> writes them again.
/// </summary>
public sealed class CaptureFixtures
{
    /// <summary>The Collector's testdata file every Linux-container value comes from (commit of the stored version).</summary>
    public const string OtelCounters = "open-telemetry/opentelemetry-collector-contrib receiver/sqlserverreceiver/testdata/perfCounterQueryData.txt (commit 0b87a5f3)";

    private static readonly DateTime Captured = new(2026, 11, 26, 12, 0, 0, DateTimeKind.Utc);

    /// <summary>
    /// The Databases object of the Linux container in the Collector's capture (Telegraf's query; counter_type is the DMV's
    /// cntr_type): per instance, Log Flushes/sec, Log Bytes Flushed/sec, Log Flush Wait Time (cumulative), Log File(s) Size
    /// (KB), Log File(s) Used Size (KB), Percent Log Used. Telegraf shows _Total as "Total"; the DMV names it _Total.
    /// </summary>
    public static readonly IReadOnlyList<(string Instance, long Flushes, long Bytes, long WaitMs, long SizeKb, long UsedKb, long Percent)> LinuxCounters =
    [
        ("_Total", 521, 5_906_432, 284, 24_264, 6_124, 25),
        ("master", 169, 1_794_048, 155, 2_040, 1_434, 70),
        ("model", 74, 675_840, 48, 8_184, 961, 11),
        ("model_msdb", 81, 704_512, 18, 1_272, 473, 37),
        ("model_replicatedmaster", 89, 978_944, 49, 2_040, 842, 41),
        ("msdb", 79, 724_992, 14, 1_272, 493, 38),
        ("mssqlsystemresource", 0, 0, 0, 1_272, 476, 37),
        ("tempdb", 29, 1_028_096, 0, 8_184, 1_445, 17),
    ];

    /// <summary>
    /// tempdb's 29 flushes as write sizes: constructed (no published capture holds a live stream), multiples of 512 B up to
    /// 60 KB that add up to the capture's 1,028,096 bytes: 16 x 61,440 + 12 x 3,584 + 1 x 2,048.
    /// </summary>
    public static readonly IReadOnlyList<(uint Size, int Count)> TempdbFlushes = [(61_440, 16), (3_584, 12), (2_048, 1)];

    [SkippableFact]
    public async Task The_transcribed_fixtures_are_written_from_their_sources()
    {
        Skip.IfNot(Environment.GetEnvironmentVariable("LFM_UPDATE_CAPTURE") == "1", "writes the transcribed fixtures of tests/testdata/captures; run with LFM_UPDATE_CAPTURE=1 to remake them");
        var catalog = XeCatalog();
        await WriteAsync("otel-linux-container.zip", LinuxContainer(catalog));
        await WriteAsync("otel-availability-group.zip", AvailabilityGroup());
        await WriteAsync("azure-managed-instance.zip", ManagedInstance(catalog));
    }

    /// <summary>
    /// A Linux container: the Collector's counter capture (poll 2) against the same instance as it started (poll 1: the
    /// cumulative counters at 0, which is what "since the instance started" means; the point values as captured), its
    /// four databases, its version from the Collector's property capture of a Linux container (propertyQueryData.txt:
    /// SQL Server 2022 RTM-CU11, 16.0.4105.2, Developer Edition, engine edition 3, 4 databases online), and tempdb's flushes
    /// in the live stream and the histogram target (constructed, <see cref="TempdbFlushes"/>).
    /// </summary>
    private static InstanceCaptureResult LinuxContainer(List<CapturedStatement> catalog)
    {
        var c = new InstanceCaptureResult { Instance = "otel-linux" };
        c.Statements.Add(S("server_properties", CheckSql.ServerProperties, [("ProductVersion", "nvarchar"), ("Edition", "nvarchar"), ("EngineEdition", "int")],
            [["16.0.4105.2", "Developer Edition (64-bit)", 3]]));
        c.Statements.Add(S("server_identity", CountersSignal.IdentityStatement.Text, [("EngineEdition", "int"), ("CurrentDatabase", "nvarchar")], [[3, "master"]]));
        c.Statements.AddRange(catalog);
        var databases = SystemDatabases();
        AddDatabases(c, databases);
        for (var poll = 1; poll <= 2; poll++)
        {
            var rows = new List<object?[]>();
            foreach (var (instance, flushes, bytes, waitMs, sizeKb, usedKb, percent) in LinuxCounters)
            {
                var n = poll - 1; // poll 1: as the instance started; poll 2: as captured
                rows.Add(Counter(DatabasesCounters.LogFlushes, instance, flushes * n, 272_696_576));
                rows.Add(Counter(DatabasesCounters.LogBytesFlushed, instance, bytes * n, 272_696_576));
                rows.Add(Counter(DatabasesCounters.LogFlushWaitTime, instance, waitMs * n, 272_696_576));
                rows.Add(Counter(DatabasesCounters.LogSize, instance, sizeKb, 65_792));
                rows.Add(Counter(DatabasesCounters.LogUsedSize, instance, usedKb, 65_792));
                rows.Add(Counter(DatabasesCounters.PercentLogUsed, instance, percent, 65_792));
            }

            // The Database Replica object's _Total (Telegraf: "Total"), as captured: both counters 0, type 272696576.
            rows.Add(Counter(DatabaseReplicaCounters.TransactionDelay, "_Total", 0, 272_696_576, "SQLServer:Database Replica"));
            rows.Add(Counter(DatabaseReplicaCounters.MirroredWriteTransactions, "_Total", 0, 272_696_576, "SQLServer:Database Replica"));
            c.Statements.Add(S("counters", CountersSignal.NamedStatement.Text, CounterColumns, rows, poll));
        }

        AddStream(c, [(2, TempdbFlushes)]);
        return c;
    }

    /// <summary>
    /// An availability group: the Collector's capture of sys.dm_hadr_database_replica_states on the primary sql-node-01
    /// (availabilityGroupQueryData.txt: group AG_Primary, SalesDB and InventoryDB sent to sql-node-02, SalesDB's own row on
    /// sql-node-01), the same at both polls. Role, commit mode and synchronization state are not in it: NULL (the monitor
    /// reads UNKNOWN); the database ids are constructed (5, 6), the last harden age NULL. No counters, no stream.
    /// </summary>
    private static InstanceCaptureResult AvailabilityGroup()
    {
        var c = new InstanceCaptureResult { Instance = "sql-node-01" };
        c.Statements.Add(S("server_identity", CountersSignal.IdentityStatement.Text, [("EngineEdition", "int"), ("CurrentDatabase", "nvarchar")], [[3, "master"]]));
        AddDatabases(c, [.. SystemDatabases(), (5, "SalesDB", "FULL"), (6, "InventoryDB", "FULL")]);
        for (var poll = 1; poll <= 2; poll++)
        {
            c.Statements.Add(S("hadr_replicas", HadrReplicasSignal.Statement.Text,
                [("DatabaseId", "int"), ("DatabaseName", "nvarchar"), ("AvailabilityGroup", "nvarchar"), ("Replica", "nvarchar"), ("Role", "nvarchar"),
                 ("AvailabilityMode", "nvarchar"), ("SynchronizationState", "nvarchar"), ("CatalogVisible", "bit"), ("LogSendQueueKb", "bigint"),
                 ("LogSendRateKbPerSecond", "bigint"), ("RedoQueueKb", "bigint"), ("RedoRateKbPerSecond", "bigint"), ("SecondaryLagSeconds", "bigint"), ("LastHardenedAgeSeconds", "bigint"),
                 ("CommitBehindMs", "bigint")],
                [
                    [5, "SalesDB", "AG_Primary", "sql-node-02", null, null, null, true, 1_024L, 512L, 2_048L, 256L, 5L, null, null],
                    [6, "InventoryDB", "AG_Primary", "sql-node-02", null, null, null, true, 512L, 256L, 1_024L, 128L, 2L, null, null],
                    [5, "SalesDB", "AG_Primary", "sql-node-01", null, null, null, true, 0L, 0L, 0L, 0L, null, null, null],
                ], poll));
        }

        return c;
    }

    /// <summary>
    /// Azure SQL Managed Instance: its version and edition from the Collector's property capture of a managed instance
    /// (propertyQueryDataManagedInstance.txt: 16.0.4105.2, "SQL Azure", engine edition 8); the counters in the shape
    /// Telegraf's managed-instance query documents (azuresqlmanagedqueries.go: a user database's instance_name is its
    /// physical_database_name, a GUID, mapped on LEFT(instance_name, 36); the internal model_masterdb and model_userdb),
    /// with the Linux capture's figures for the system databases and constructed ones for two user databases ("orders"
    /// under its exact GUID, "billing" under its GUID with a suffix) and the internal instances; their flushes in the
    /// stream and the histogram target (constructed: 4,096 B each).
    /// </summary>
    private static InstanceCaptureResult ManagedInstance(List<CapturedStatement> catalog)
    {
        const string Orders = "6c1d3a52-8f2e-4b7a-9d41-2e5f0c7b9a13", Billing = "b8e2f4a1-3c5d-4e6f-8a9b-0c1d2e3f4a5b";
        var c = new InstanceCaptureResult { Instance = "azure-mi" };
        c.Statements.Add(S("server_properties", CheckSql.ServerProperties, [("ProductVersion", "nvarchar"), ("Edition", "nvarchar"), ("EngineEdition", "int")],
            [["16.0.4105.2", "SQL Azure", 8]]));
        c.Statements.Add(S("server_identity", CountersSignal.IdentityStatement.Text, [("EngineEdition", "int"), ("CurrentDatabase", "nvarchar")], [[8, "master"]]));
        c.Statements.AddRange(catalog);
        AddDatabases(c, [.. SystemDatabases(), (5, "orders", "FULL"), (6, "billing", "FULL")]);
        c.Statements.Add(S("physical_database_names", CountersSignal.PhysicalNamesStatement.Text, [("Name", "nvarchar"), ("PhysicalName", "nvarchar")],
            [["master", "master"], ["tempdb", "tempdb"], ["model", "model"], ["msdb", "msdb"], ["orders", Orders], ["billing", Billing]]));
        var system = LinuxCounters.Where(l => l.Instance is "master" or "model" or "msdb" or "tempdb").ToList();
        (string Instance, long Flushes, long Bytes, long WaitMs)[] rest =
        [
            (Orders, 1_200, 1_200 * 4_096, 600), (Billing + ".12345", 400, 400 * 4_096, 100),
            ("model_masterdb", 12, 49_152, 3), ("model_userdb", 9, 36_864, 2),
        ];
        var total = (Flushes: system.Sum(s => s.Flushes) + rest.Sum(r => r.Flushes), Bytes: system.Sum(s => s.Bytes) + rest.Sum(r => r.Bytes), WaitMs: system.Sum(s => s.WaitMs) + rest.Sum(r => r.WaitMs));
        for (var poll = 1; poll <= 2; poll++)
        {
            var n = poll - 1;
            var rows = new List<object?[]>();
            foreach (var (instance, flushes, bytes, waitMs) in system.Select(s => (s.Instance, s.Flushes, s.Bytes, s.WaitMs)).Concat(rest).Append(("_Total", total.Flushes, total.Bytes, total.WaitMs)))
            {
                rows.Add(Counter(DatabasesCounters.LogFlushes, instance, flushes * n, 272_696_576));
                rows.Add(Counter(DatabasesCounters.LogBytesFlushed, instance, bytes * n, 272_696_576));
                rows.Add(Counter(DatabasesCounters.LogFlushWaitTime, instance, waitMs * n, 272_696_576));
            }

            c.Statements.Add(S("counters", CountersSignal.NamedStatement.Text, CounterColumns, rows, poll));
        }

        AddStream(c, [(2, TempdbFlushes), (5, [(4_096, 1_200)]), (6, [(4_096, 400)])]);
        return c;
    }

    private static readonly IReadOnlyList<(string Name, string Type)> CounterColumns =
        [("ObjectName", "nchar"), ("CounterName", "nchar"), ("InstanceName", "nchar"), ("Value", "bigint"), ("Type", "int")];

    /// <summary>The four system databases with their documented default recovery models (Microsoft, "Back up and restore: system databases").</summary>
    private static List<(int Id, string Name, string Recovery)> SystemDatabases() => [(1, "master", "SIMPLE"), (2, "tempdb", "SIMPLE"), (3, "model", "FULL"), (4, "msdb", "SIMPLE")];

    /// <summary>sys.databases at both polls, and the event session's reads of it.</summary>
    private static void AddDatabases(InstanceCaptureResult c, List<(int Id, string Name, string Recovery)> databases)
    {
        for (var poll = 1; poll <= 2; poll++)
        {
            c.Statements.Add(S("databases", DatabasesSignal.Statement.Text,
                [("Id", "int"), ("Name", "nvarchar"), ("State", "nvarchar"), ("RecoveryModel", "nvarchar"), ("DelayedDurability", "nvarchar"), ("AutoClose", "bit"), ("IsSnapshot", "bit")],
                [.. databases.Select(d => new object?[] { d.Id, d.Name, "ONLINE", d.Recovery, "DISABLED", false, false })], poll));
        }

        c.Statements.Add(S("xe_all_databases", XeSql.AllDatabases, [("DatabaseId", "int"), ("Name", "nvarchar")], [.. databases.Select(d => new object?[] { d.Id, d.Name })]));
        c.Statements.Add(S("xe_user_databases", XeSql.UserDatabases, [("DatabaseId", "int"), ("Name", "nvarchar")], [.. databases.Where(d => d.Id == 2 || d.Id > 4).Select(d => new object?[] { d.Id, d.Name })]));
    }

    /// <summary>
    /// The flushes as live-stream rows (written by the project's XE writer: no published capture holds a live stream) and as
    /// the histogram target's XML counting the same flushes by write size, in the shape Microsoft documents for the target.
    /// </summary>
    private static void AddStream(InstanceCaptureResult c, IReadOnlyList<(int DatabaseId, IReadOnlyList<(uint Size, int Count)> Sizes)> flushes)
    {
        var start = Captured.AddSeconds(1);
        var seq = 0UL;
        foreach (var (type, data) in XelWriter.WriteLiveStreamBuffers(start, w =>
        {
            foreach (var (id, sizes) in flushes)
            {
                foreach (var (size, count) in sizes)
                {
                    for (var i = 0; i < count; i++)
                    {
                        seq++;
                        w.LogFlushStart(start.AddMilliseconds(seq), (uint)id, null, size, seq, seq);
                        if (seq % 200 == 0)
                        {
                            w.Flush();
                        }
                    }
                }
            }
        }))
        {
            c.StreamRows.Add(new CapturedStreamRow(type, data, start));
        }

        c.Session = "lfm_capture_check";
        c.StreamEnd = "read for 15 s, then closed by the capture";
        var slots = flushes.SelectMany(f => f.Sizes).GroupBy(s => s.Size).OrderByDescending(g => g.Sum(s => s.Count)).ThenBy(g => g.Key);
        c.HistogramXml = "<HistogramTarget truncated=\"0\" buckets=\"256\">"
            + string.Concat(slots.Select(g => string.Create(CultureInfo.InvariantCulture, $"<Slot count=\"{g.Sum(s => s.Count)}\"><value>{g.Key}</value></Slot>")))
            + "</HistogramTarget>";
        c.Statements.Add(S("histogram_target", XeSql.ServerHistogramData, [("TargetData", "nvarchar")], [[c.HistogramXml]]));
    }

    /// <summary>One counter row as the DMV returns it: object, counter and instance names blank-padded to nchar(128).</summary>
    private static object?[] Counter(string counter, string instance, long value, int type, string objectName = "SQLServer:Databases") =>
        [objectName.PadRight(128), counter.PadRight(128), instance.PadRight(128), value, type];

    private static CapturedStatement S(string name, string text, IReadOnlyList<(string Name, string Type)> columns, IReadOnlyList<object?[]> rows, int? poll = null) =>
        new() { Name = name, Text = text, Columns = columns, Rows = rows, Poll = poll, StartedUtc = poll == 2 ? Captured.AddSeconds(15) : Captured };

    /// <summary>
    /// The Extended Events catalog rows the session is built from (events, their columns, the WRITELOG and HADR_SYNC_COMMIT
    /// map keys, and those of LOGBUFFER and the log-rate governor's waits), taken from the scripted fixture: the TDS test server's beliefs (docs/sqlserver.md), which the XE writer of
    /// the stream rows shares. No published capture holds them.
    /// </summary>
    private static List<CapturedStatement> XeCatalog()
    {
        using var zip = ZipFile.OpenRead(Path.Combine(CaptureReplayTests.CapturesDirectory(), "scripted-linux-container.zip"));
        using var s = zip.GetEntry("instances/prod-1/statements.json")!.Open();
        var statements = JsonNode.Parse(s)!.AsArray();
        var names = new[] { "xe_objects", "xe_event_columns", "xe_writelog_keys", "xe_hadr_sync_commit_keys", "xe_log_wait_keys" };
        return [.. statements.Where(st => names.Contains((string)st!["name"]!)).Select(st => new CapturedStatement
        {
            Name = (string)st!["name"]!,
            Text = (string)st["text"]!,
            Columns = [.. st["columns"]!.AsArray().Select(col => ((string)col!["name"]!, (string)col["type"]!))],
            Rows = [.. st["rows"]!.AsArray().Select(r => r!.AsArray().Select(Cell).ToArray())],
            StartedUtc = Captured,
        })];
    }

    private static object? Cell(JsonNode? cell) => cell switch
    {
        null => null,
        JsonValue v when v.TryGetValue<long>(out var l) => l,
        JsonValue v when v.TryGetValue<bool>(out var b) => b,
        _ => (string?)cell,
    };

    private static async Task WriteAsync(string file, InstanceCaptureResult capture) =>
        await CaptureArchive.WriteAsync(Path.Combine(CaptureReplayTests.CapturesDirectory(), file), [capture],
            new CaptureSettings { PollGap = TimeSpan.FromSeconds(15), StreamTime = TimeSpan.FromSeconds(15), ToolVersion = "transcribed by CaptureFixtures (tests)" },
            Captured, [], CancellationToken.None);
}

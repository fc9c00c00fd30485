using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Simulation;

/// <summary>An instance restart: down at <paramref name="After"/> from the simulation start for <paramref name="Downtime"/>.</summary>
internal sealed record RestartPlan(TimeSpan After, TimeSpan Downtime);

/// <summary>
/// One simulated SQL Server instance together with the source that reads it: it numbers events
/// (package0.event_sequence), loses some when asked, detects the gaps as a real source would, and answers
/// polls with counters (every counter of the Databases object, <see cref="DatabasesCounterSet"/>), wait stats, file
/// stats and the sessions waiting on WRITELOG now, derived from the same increments as the events.
/// </summary>
/// <remarks>
/// While its log device stalls (<see cref="LogStall"/>) a flush's start is delivered at once and its complete and
/// WRITELOG wait only when the stall is over, at their own times; the completed-wait figures (counters, wait stats, the
/// file's write stall) grow then too, as the server's do. A poll meanwhile sees the waiting sessions.
/// </remarks>
internal sealed partial class SimulatedInstance
{
    private const string Total = "_Total";
    private const string WriteLog = "WRITELOG";
    private const string LogBuffer = "LOGBUFFER";
    private const string HadrSyncCommit = "HADR_SYNC_COMMIT";
    private const string SessionName = "LogFlushMonitor";

    /// <summary>The applications' shares of 128 (as <see cref="Application"/> picks them), the last two folded into "other".</summary>
    private static readonly (string App, int Share)[] ApplicationShares =
        [("OrderService", 48), ("BillingWorker", 24), ("InventorySync", 16), ("EtlLoader", 12), ("ReportingJob", 10), ("other", 18)];

    /// <summary>
    /// The statements the applications commit (as <see cref="Statement"/> picks them for a waited commit, and as Query Store
    /// shares each database's log between them): six with known shares of 128, the last folded into "other" of the top 5.
    /// The hashes are made up; the texts carry the parameter declarations a parameterized statement has in Query Store.
    /// </summary>
    internal static readonly SimulatedStatement[] Statements =
    [
        new(0x4F7A1C2D3E5B6A79UL, "(@p0 int,@p1 decimal(18,2))INSERT INTO dbo.Orders (CustomerId, Amount) VALUES (@p0, @p1)", 56),
        new(0x1B2C3D4E5F607182UL, "(@p0 int,@p1 int)UPDATE dbo.Inventory SET Quantity = Quantity - @p0 WHERE ItemId = @p1", 32),
        new(0x8899AABBCCDDEEF0UL, "(@p0 int,@p1 nvarchar(4000))INSERT INTO dbo.AuditLog (UserId, Action) VALUES (@p0, @p1)", 16),
        new(0x0123456789ABCDEFUL, "(@p0 int,@p1 decimal(18,2))UPDATE dbo.Accounts SET Balance = Balance + @p1 WHERE AccountId = @p0", 12),
        new(0x7E6D5C4B3A291807UL, "(@p0 datetime2(7))DELETE FROM dbo.Sessions WHERE ExpiresAt < @p0", 8),
        new(0x5A5A5A5A12345678UL, "MERGE dbo.DailyTotals AS t USING (SELECT CAST(SYSUTCDATETIME() AS date) AS d) AS s ON t.Day = s.d WHEN MATCHED THEN UPDATE SET Orders = Orders + 1 WHEN NOT MATCHED THEN INSERT (Day, Orders) VALUES (s.d, 1);", 4),
    ];

    /// <summary>
    /// master, model and msdb flush on every real server (job history, backups, checkpoints) while the event session, whose
    /// predicate is <c>database_id = 2 OR database_id &gt; 4</c>, never reports them: counters only, never an event. Their
    /// figures are a real Linux container's (the OpenTelemetry Collector's
    /// <c>receiver/sqlserverreceiver/testdata/perfCounterQueryData.txt</c>: Log Flushes/sec, Log Bytes Flushed/sec, Log Flush
    /// Wait Time, Log File(s) Used Size (KB), Log File(s) Size (KB)), each cumulative count taken as what the database adds
    /// in 100 s, so they keep the capture's proportions.
    /// </summary>
    internal static readonly IReadOnlyList<(string Name, long Flushes, long Bytes, long WaitMs, long UsedKb, long SizeKb)> SystemDatabases =
    [
        ("master", 169, 1_794_048, 155, 1_434, 2_040),
        ("model", 74, 675_840, 48, 961, 8_184),
        ("msdb", 79, 724_992, 14, 493, 1_272),
    ];

    private readonly List<SimulatedDatabase> _databases;
    private readonly TimeSpan _queryStoreInterval;
    private readonly bool _statementText;
    private long _nextQueryStore;
    private readonly RestartPlan? _restart;
    private readonly LogStall? _stall;
    private readonly List<PendingFlush> _pending = [];
    private readonly List<InFlightWait> _inFlight = [];
    private long _stepEnd;
    private readonly double _lossRate;
    private readonly SimRandom _lossRng;
    private SequenceGapTracker _gaps;
    private long _sequence;
    private long _restartAt = long.MaxValue;
    private long _upAt = long.MaxValue;
    private bool _down;
    private DateTime _startTime;

    // Instance-wide cumulative wait stats (sys.dm_os_wait_stats) in ticks.
    private long _writeLogTasks;
    private long _writeLogTicks;
    private long _writeLogSignalTicks;
    private long _writeLogMaxTicks;
    private long _logBufferTasks;
    private long _logBufferTicks;
    private long _logBufferMaxTicks;
    private long _hadrTasks;
    private long _hadrTicks;
    private long _hadrMaxTicks;
    private readonly SimRandom _replicaRng;

    // Events the session fired (delivered or lost on the way), for sys.dm_xe_session_events.
    private long _firedStarts;
    private long _firedCompletes;
    private long _firedWaits;

    public SimulatedInstance(string name, int index, SimulationOptions options, List<SimulatedDatabase> databases, RestartPlan? restart = null, LogStall? stall = null,
        AzureGovernance? azure = null)
    {
        Azure = azure;
        Name = name;
        _databases = databases;
        _restart = restart;
        _stall = stall;
        _lossRate = options.EventLossRate;
        _lossRng = new SimRandom(SimRandom.Derive(options.Seed, index, 0xFFFF));
        _replicaRng = new SimRandom(SimRandom.Derive(options.Seed, index, 0xFFFE));
        _queryStoreInterval = options.QueryStoreInterval;
        _statementText = options.StatementText;
    }

    /// <summary>The instance name every sample carries (one string object).</summary>
    public string Name { get; }

    public long SimulationStartTicks { get; private set; }

    public IReadOnlyList<SimulatedDatabase> Databases => _databases;

    public void Start(long startTicks)
    {
        SimulationStartTicks = startTicks;
        // The instance has been up for a while before monitoring begins.
        _startTime = new DateTime(startTicks, DateTimeKind.Utc).AddDays(-3).AddHours(-4).AddMinutes(-7);
        if (_restart is not null)
        {
            _restartAt = startTicks + _restart.After.Ticks;
            _upAt = _restartAt + _restart.Downtime.Ticks;
        }

        foreach (var db in _databases)
        {
            db.DropAtTicks = db.DropAfter is { } d ? startTicks + d.Ticks : long.MaxValue;
            db.Workload.StartAt(startTicks);
            db.Log.LastBackupTicks = startTicks - (db.Log.Plan.LastBackupBefore ?? TimeSpan.FromMinutes(5)).Ticks;
            db.Log.LastCheckpointTicks = startTicks;
        }
    }

    /// <summary>The next scheduled change after <paramref name="now"/> (restart, recovery, drop): steps end there.</summary>
    public long NextChange(long now)
    {
        var next = long.MaxValue;
        if (_restartAt > now)
        {
            next = _restartAt;
        }
        else if (_upAt > now)
        {
            next = _upAt;
        }

        foreach (var db in _databases)
        {
            if (db.DropAtTicks > now && db.DropAtTicks < next)
            {
                next = db.DropAtTicks;
            }
        }

        return next;
    }

    /// <summary>
    /// Time from <paramref name="ticks"/> until the log device completes writes again, or 0 when it does now.
    /// </summary>
    public long StalledTicks(long ticks) =>
        _stall?.EndOf(TimeSpan.FromTicks(ticks - SimulationStartTicks)) is { } end ? SimulationStartTicks + end.Ticks - ticks : 0;

    /// <summary>Applies the changes due at <paramref name="now"/>.</summary>
    public void ApplyChanges(long now)
    {
        for (var i = _databases.Count - 1; i >= 0; i--)
        {
            if (_databases[i].DropAtTicks <= now)
            {
                var dropped = _databases[i];
                _pending.RemoveAll(p => p.Db == dropped);
                _inFlight.RemoveAll(w => w.Db == dropped);
                _databases.RemoveAt(i);
            }
        }

        if (!_down && now >= _restartAt && now < _upAt)
        {
            // Whatever was in flight dies with the instance.
            _down = true;
            _pending.Clear();
            _inFlight.Clear();
        }

        if (now >= _upAt && _restartAt != long.MaxValue)
        {
            Recover(_upAt);
        }
    }

    /// <summary>Generates the events of [<paramref name="from"/>, <paramref name="to"/>).</summary>
    public void Generate(long from, long to, ISampleSink sink)
    {
        if (_down)
        {
            return;
        }

        _stepEnd = to;
        ReleaseStalled(to, sink);
        for (var i = _inFlight.Count - 1; i >= 0; i--)
        {
            if (_inFlight[i].EndTicks <= from)
            {
                _inFlight.RemoveAt(i);
            }
        }

        foreach (var db in _databases)
        {
            db.Workload.Generate(from, to, this, db, sink);
        }
    }

    /// <summary>
    /// Records one flush started at <paramref name="ticks"/>; <paramref name="waitUs"/> &gt; 0 when a committing
    /// session waited WRITELOG for it.
    /// </summary>
    public void Flush(SimulatedDatabase db, long ticks, uint size, long latencyUs, long waitUs, ISampleSink sink)
    {
        if (!db.Log.Fits(db.LogBytesInUse + size))
        {
            return; // the log is full (error 9002): the write fails, nothing is flushed
        }

        db.Log.SinceBackupBytes += size;
        db.Log.SinceCheckpointBytes += size;
        var block = db.NextBlock;
        db.NextBlock += (size + 511) / 512;
        db.Flushes++;
        db.BytesFlushed += size;
        db.LogBytesInUse += size;
        var latencyTicks = latencyUs * 10;
        var waitTicks = Math.Max(0, waitUs) * 10;
        _firedStarts++;
        if (Deliver(sink, out var seq))
        {
            sink.OnLogFlush(new LogFlushEvent(Name, db.Id, db.Name, size, block, new DateTime(ticks, DateTimeKind.Utc), null, seq));
        }

        if (waitTicks > 0 && ticks + waitTicks > _stepEnd)
        {
            // Still waiting when this step ends: a poll between now and then sees the session waiting.
            _inFlight.Add(new InFlightWait(db, ticks, ticks + waitTicks));
        }

        if (StalledTicks(ticks) > 0)
        {
            _pending.Add(new PendingFlush(db, block, ticks, latencyTicks, waitTicks));
            return;
        }

        Complete(db, block, ticks, latencyTicks, waitTicks, sink);
    }

    /// <summary>A flush's write completes: its complete event, and the wait of the session that waited for it.</summary>
    private void Complete(SimulatedDatabase db, ulong block, long ticks, long latencyTicks, long waitTicks, ISampleSink sink)
    {
        db.StallTicks += latencyTicks;
        db.QueuedTicks += Azure is { } azure ? (long)(latencyTicks * azure.QueuedShare) : 0;
        var t = new DateTime(ticks, DateTimeKind.Utc);
        _firedCompletes += db.EmitComplete ? 1 : 0;
        if (db.EmitComplete && Deliver(sink, out var seq))
        {
            sink.OnLogFlush(new LogFlushEvent(Name, db.Id, db.Name, 0, block, t.AddTicks(latencyTicks), TimeSpan.FromTicks(latencyTicks), seq));
        }

        if (waitTicks <= 0)
        {
            return;
        }

        db.FlushWaits++;
        db.FlushWaitTicks += waitTicks;
        _writeLogTasks++;
        _writeLogTicks += waitTicks;
        _writeLogSignalTicks += waitTicks - latencyTicks;
        _writeLogMaxTicks = Math.Max(_writeLogMaxTicks, waitTicks);
        _firedWaits++;
        if (Deliver(sink, out seq))
        {
            sink.OnWait(new WaitEvent(Name, WriteLog, TimeSpan.FromTicks(waitTicks), db.Id, db.Name, t.AddTicks(waitTicks), seq, Application(block), Statement(block).Hash));
        }

        if (db.Replica is { } replica && replica.DisconnectedFor(TimeSpan.FromTicks(ticks - SimulationStartTicks)) is null)
        {
            // The commit then waits for the synchronous secondary to harden it: the remote half, on its own clock.
            var syncTicks = replica.DelayMicroseconds(_replicaRng, TimeSpan.FromTicks(ticks - SimulationStartTicks)) * 10;
            db.MirroredTransactions++;
            db.SyncDelayTicks += syncTicks;
            db.LastSyncDelayTicks = syncTicks;
            _hadrTasks++;
            _hadrTicks += syncTicks;
            _hadrMaxTicks = Math.Max(_hadrMaxTicks, syncTicks);
            _firedWaits++;
            if (Deliver(sink, out seq))
            {
                sink.OnWait(new WaitEvent(Name, HadrSyncCommit, TimeSpan.FromTicks(syncTicks), db.Id, db.Name, t.AddTicks(waitTicks + syncTicks), seq));
            }
        }
    }

    /// <summary>
    /// The client application of the session that waited for <paramref name="block"/>: seven applications with skewed
    /// shares (so the top 5 per database and "other" both show), chosen from the block id alone so the random
    /// streams of the rest of the simulation stay as they were.
    /// </summary>
    internal static string Application(ulong block)
    {
        var share = (int)((block * 0x9E3779B97F4A7C15UL) >> 57); // 0..127, spread over consecutive blocks
        return share switch
        {
            < 48 => "OrderService",
            < 72 => "BillingWorker",
            < 88 => "InventorySync",
            < 100 => "EtlLoader",
            < 110 => "ReportingJob",
            < 120 => "AuditLogger",
            _ => "Microsoft SQL Server Management Studio - Query",
        };
    }

    /// <summary>
    /// The statement of the commit that waited for <paramref name="block"/>: one of <see cref="Statements"/> by their shares,
    /// chosen from the block id alone (another multiplier than <see cref="Application"/>'s, so the two are not tied).
    /// </summary>
    internal static SimulatedStatement Statement(ulong block)
    {
        var share = (int)((block * 0xC2B2AE3D27D4EB4FUL) >> 57); // 0..127
        foreach (var s in Statements)
        {
            if (share < s.Share)
            {
                return s;
            }

            share -= s.Share;
        }

        return Statements[^1];
    }

    /// <summary>Completes the stalled flushes whose write finishes before <paramref name="to"/>, in the order they started.</summary>
    private void ReleaseStalled(long to, ISampleSink sink)
    {
        for (var i = 0; i < _pending.Count;)
        {
            var p = _pending[i];
            if (p.StartTicks + p.LatencyTicks < to)
            {
                _pending.RemoveAt(i);
                Complete(p.Db, p.Block, p.StartTicks, p.LatencyTicks, p.WaitTicks, sink);
            }
            else
            {
                i++;
            }
        }
    }

    /// <summary>A LOGBUFFER wait: only in wait stats (the event session watches WRITELOG alone).</summary>
    public void LogBufferWait(long waitUs)
    {
        _logBufferTasks++;
        _logBufferTicks += waitUs * 10;
        _logBufferMaxTicks = Math.Max(_logBufferMaxTicks, waitUs * 10);
    }

    /// <summary>Answers one poll of every kind at <paramref name="ticks"/>; a down instance answers nothing.</summary>
    public void Poll(long ticks, ISampleSink sink)
    {
        if (_down)
        {
            return;
        }

        var t = new DateTime(ticks, DateTimeKind.Utc);
        sink.OnBatch(SignalRegistry.ServerStart.Batch(Name, t, [new ServerStartRow(_startTime)], endsPoll: false));

        var counters = new List<CounterRow>(DatabasesCounterSet.Counters.Count * (_databases.Count + SystemDatabases.Count + 1));
        long flushes = 0, bytes = 0, waits = 0, waitMs = 0, usedKb = 0, sizeKb = 0, hits = 0, lookups = 0, writeTransactions = 0;
        long growths = 0;
        foreach (var db in _databases)
        {
            db.TruncateIfFull(ticks);
            var dbWaitMs = db.FlushWaitTicks / TimeSpan.TicksPerMillisecond;
            Counters(counters, db.Name, db.Flushes, db.BytesFlushed, db.FlushWaits, dbWaitMs, db.LogUsedKb, db.LogSizeKb, db.CacheHits, db.CacheLookups, db.Log.Growths);
            growths += db.Log.Growths;
            DatabasesCounterSet.SetWriteTransactions(counters, db.Name, db.WriteTransactions);
            writeTransactions += db.WriteTransactions;
            flushes += db.Flushes;
            bytes += db.BytesFlushed;
            waits += db.FlushWaits;
            waitMs += dbWaitMs;
            usedKb += db.LogUsedKb;
            sizeKb += db.LogSizeKb;
            hits += db.CacheHits;
            lookups += db.CacheLookups;
        }

        // The system databases' counters since the instance started, in the capture's proportions (per 100 s).
        var up = Math.Max(0, (long)(t - _startTime).TotalSeconds);
        foreach (var (name, perFlushes, perBytes, perWaitMs, dbUsedKb, dbSizeKb) in SystemDatabases)
        {
            var (f, b, w) = (perFlushes * up / 100, perBytes * up / 100, perWaitMs * up / 100);
            Counters(counters, name, f, b, f, w, dbUsedKb, dbSizeKb, 0, 0, 0); // a commit waits for each of them (and is one)
            writeTransactions += f;
            flushes += f;
            waits += f;
            bytes += b;
            waitMs += w;
            usedKb += dbUsedKb;
            sizeKb += dbSizeKb;
        }

        Counters(counters, Total, flushes, bytes, waits, waitMs, usedKb, sizeKb, hits, lookups, growths);
        DatabasesCounterSet.SetWriteTransactions(counters, Total, writeTransactions);
        const long Ms = TimeSpan.TicksPerMillisecond;
        foreach (var db in _databases.Where(d => d.Replica is not null))
        {
            counters.Add(new CounterRow(DatabaseReplicaCounters.Object, DatabaseReplicaCounters.TransactionDelay, db.Name, db.SyncDelayTicks / Ms, PerfCounterType.BulkCount));
            counters.Add(new CounterRow(DatabaseReplicaCounters.Object, DatabaseReplicaCounters.MirroredWriteTransactions, db.Name, db.MirroredTransactions, PerfCounterType.BulkCount));
        }

        sink.OnBatch(SignalRegistry.Counters.Batch(Name, t, [.. counters], endsPoll: true));

        sink.OnBatch(SignalRegistry.WaitStats.Batch(Name, t, WaitStatsRows(), endsPoll: true));

        sink.OnBatch(SignalRegistry.FileStats.Batch(Name, t, [.. _databases.Select(db => new FileStatsRow(db.Id, db.Name, 2, db.Flushes, db.BytesFlushed, db.StallTicks / Ms, db.QueuedTicks / Ms))], endsPoll: true));

        // sys.dm_os_waiting_tasks: the sessions whose WRITELOG wait is under way now.
        var waiters = new List<WriteLogWaitersRow>();
        foreach (var db in _databases)
        {
            var sessions = 0;
            long longest = 0;
            foreach (var w in _inFlight)
            {
                if (ReferenceEquals(w.Db, db) && w.StartTicks <= ticks && ticks < w.EndTicks)
                {
                    sessions++;
                    longest = Math.Max(longest, ticks - w.StartTicks);
                }
            }

            waiters.Add(new WriteLogWaitersRow(db.Id, db.Name, sessions, longest / Ms));
        }

        sink.OnBatch(SignalRegistry.WriteLogWaiters.Batch(Name, t, [.. waiters], endsPoll: true));

        // sys.dm_tran_database_transactions: the log written since the last poll stands for what the applications' short
        // transactions hold, split by their shares (Application); the top 5 and "other" (AuditLogger, SSMS), as the poller folds.
        var writers = new List<LogWritersRow>();
        foreach (var db in _databases)
        {
            var written = db.BytesFlushed - db.BytesAtLastWritersPoll;
            db.BytesAtLastWritersPoll = db.BytesFlushed;
            if (written <= 0)
            {
                continue;
            }

            foreach (var (app, share) in ApplicationShares)
            {
                var used = written * share / 128;
                writers.Add(new LogWritersRow(db.Id, db.Name, app, app == "other" ? 2 : 1, used, 2 * used));
            }
        }

        sink.OnBatch(SignalRegistry.LogWriters.Batch(Name, t, [.. writers], endsPoll: true));

        // sys.dm_xe_sessions and sys.dm_xe_session_events as SQL Server 2022 with trace flag 9708 reports the session: every
        // event it fired (those lost on the way to the monitor included), at a few microseconds each (simulated figures:
        // docs/operations.md, "What the monitor costs the server", says what real ones mean), its 4 MB of buffers.
        sink.OnBatch(SignalRegistry.XeSessionCost.Batch(Name, t,
        [
            new XeSessionCostRow(SessionName, BufferBytes: 4_194_304, RegularBuffers: 3, PendingBuffers: 0),
            new XeSessionCostRow(SessionName, "log_flush_start", _firedStarts, 2, 1, 38),
            new XeSessionCostRow(SessionName, "log_flush_complete", _firedCompletes, 1, 1, 21),
            new XeSessionCostRow(SessionName, "wait_completed", _firedWaits, 3, 1, 45),
        ], endsPoll: true));
        PollReplicas(t, sink);
        PollGovernance(t, sink);
        PollLogSpace(ticks, t, sink);
        if (ticks >= _nextQueryStore)
        {
            _nextQueryStore = ticks + _queryStoreInterval.Ticks;
            PollQueryStore(t, sink);
        }
    }

    /// <summary>
    /// Query Store as the monitor's poll reads it (QueryStoreSignal): per database, each statement's share of the log
    /// flushed and of the write transactions since the previous answer (the first answer is the baseline: no increase),
    /// the statements before the database's own row; every database READ_WRITE.
    /// </summary>
    private void PollQueryStore(DateTime t, ISampleSink sink)
    {
        var rows = new List<QueryStoreRow>();
        foreach (var db in _databases)
        {
            var (bytes, transactions) = db.AtLastQueryStore is { } before ? (db.BytesFlushed - before.Bytes, db.WriteTransactions - before.Transactions) : (0, 0);
            db.AtLastQueryStore = (db.BytesFlushed, db.WriteTransactions);
            foreach (var s in Statements)
            {
                rows.Add(new QueryStoreRow(db.Id, db.Name, QueryStoreStates.ReadWrite, QueryHashes.Format(s.Hash),
                    _statementText ? Core.Text.StatementText.Shorten(s.Text) : null, bytes * s.Share / 128, transactions * s.Share / 128, db.BytesFlushed * s.Share / 128));
            }

            rows.Add(new QueryStoreRow(db.Id, db.Name, QueryStoreStates.ReadWrite, null, null, bytes, transactions, db.BytesFlushed));
        }

        sink.OnBatch(SignalRegistry.QueryStore.Batch(Name, t, [.. rows], endsPoll: true));
    }

    /// <summary>
    /// sys.dm_hadr_database_replica_states as the primary sees it: its own copy (queues, rates and lag NULL) and each
    /// secondary's. The synchronous secondary's send queue and lag follow its harden round trip (the log written while a
    /// round trip lasts waits to be sent); the asynchronous one trails by a few seconds.
    /// </summary>
    private void PollReplicas(DateTime t, ISampleSink sink)
    {
        if (!_databases.Any(d => d.Replica is not null))
        {
            return; // the poll of an instance without availability groups is not simulated (it would answer no rows)
        }

        var rows = new List<ReplicaRow>();
        foreach (var db in _databases)
        {
            if (db.Replica is not { } r)
            {
                continue;
            }

            var roundTripSeconds = db.LastSyncDelayTicks / (double)TimeSpan.TicksPerSecond;
            var sendQueueKb = (long)(roundTripSeconds * 2_000); // ~2 MB/s of log behind the round trip
            rows.Add(new ReplicaRow(db.Id, db.Name, r.Group, r.Primary, "PRIMARY", "SYNCHRONOUS_COMMIT", "SYNCHRONIZED", null, null, null, null, null, 0));
            // The synchronous secondary's last commit is one harden round trip behind the primary's.
            if (r.DisconnectedFor(TimeSpan.FromTicks(t.Ticks - SimulationStartTicks)) is { } lost)
            {
                // Disconnected: nothing is sent (its send queue holds all the log since, a send rate of 0), its last commit
                // and last harden stay where they were.
                db.BytesAtSyncLoss = db.BytesAtSyncLoss < 0 ? db.BytesFlushed : db.BytesAtSyncLoss;
                var behind = (long)lost.TotalSeconds;
                rows.Add(new ReplicaRow(db.Id, db.Name, r.Group, r.Synchronous, "SECONDARY", "SYNCHRONOUS_COMMIT", "NOT SYNCHRONIZING",
                    (db.BytesFlushed - db.BytesAtSyncLoss) / 1024, 0, 0, 0, behind, behind, (long)lost.TotalMilliseconds));
            }
            else
            {
                db.BytesAtSyncLoss = -1;
                rows.Add(new ReplicaRow(db.Id, db.Name, r.Group, r.Synchronous, "SECONDARY", "SYNCHRONOUS_COMMIT", "SYNCHRONIZED",
                    sendQueueKb, 2_000, 64, 4_000, (long)roundTripSeconds, (long)roundTripSeconds, db.LastSyncDelayTicks / TimeSpan.TicksPerMillisecond));
            }

            rows.Add(AsynchronousRow(db, r, t, sendQueueKb));
        }

        sink.OnBatch(SignalRegistry.HadrReplicas.Batch(Name, t, [.. rows], endsPoll: true));
    }

    private static void Counters(List<CounterRow> into, string db, long flushes, long bytes, long waits, long waitMs, long usedKb, long sizeKb, long hits, long lookups, long growths) =>
        DatabasesCounterSet.Read(into, db, new DatabasesCounterSet.LogCounters(flushes, bytes, waits, waitMs, usedKb, sizeKb, hits, lookups, growths));

    /// <summary>
    /// The log files (sys.master_files with sys.dm_os_volume_stats) and the log's space (sys.dm_db_log_stats) as a SQL
    /// Server 2016 SP2 or later answers them: one log file (file_id 2) per database in 8 KB pages with its volume in bytes,
    /// and the log's sizes in bytes (the statement's conversion of the DMV's MB). The reason is LOG_BACKUP once log was
    /// written since the last log backup (the full recovery model), NOTHING right after one; a checkpoint runs each minute.
    /// </summary>
    private void PollLogSpace(long ticks, DateTime t, ISampleSink sink)
    {
        var files = new List<LogFileRow>(_databases.Count);
        var space = new List<LogSpaceRow>(_databases.Count);
        foreach (var db in _databases)
        {
            var log = db.Log;
            if (ticks - log.LastCheckpointTicks >= TimeSpan.TicksPerMinute)
            {
                log.LastCheckpointTicks = ticks;
                log.SinceCheckpointBytes = 0;
            }

            var plan = log.Plan;
            var total = db.LogSizeKb * 1024;
            files.Add(new LogFileRow(db.Id, db.Name, 2, log.SizePages, plan.MaxSizePages, plan.GrowthPages, false, LogPlan.VolumeOf(db.Name), plan.VolumeTotalBytes, log.VolumeFreeBytes));
            var activeVlfs = Math.Max(1, (long)Math.Ceiling(log.Vlfs * (double)db.LogBytesInUse / Math.Max(1, total)));
            space.Add(new LogSpaceRow(db.Id, db.Name, "FULL", log.SinceBackupBytes > 0 ? "LOG_BACKUP" : "NOTHING", total, db.LogBytesInUse, log.Vlfs,
                Math.Min(activeVlfs, log.Vlfs), log.SinceBackupBytes, log.SinceCheckpointBytes, (ticks - log.LastBackupTicks) / TimeSpan.TicksPerSecond));
        }

        sink.OnBatch(SignalRegistry.LogFiles.Batch(Name, t, [.. files], endsPoll: true));
        sink.OnBatch(SignalRegistry.LogSpace.Batch(Name, t, [.. space], endsPoll: true));
    }

    /// <summary>Takes the next event_sequence; false when this event is lost on its way.</summary>
    private bool Deliver(ISampleSink sink, out long sequence)
    {
        sequence = ++_sequence;
        if (_lossRate > 0 && _lossRng.NextDouble() < _lossRate)
        {
            return false;
        }

        // What a real source does as it decodes: a gap in the sequence is events lost before us.
        _gaps.Observe(sequence, Name, sink);
        return true;
    }

    /// <summary>A statement of the simulated applications: its query hash, its text as Query Store keeps it, its share of 128.</summary>
    internal readonly record struct SimulatedStatement(ulong Hash, string Text, int Share);

    /// <summary>A flush whose write a stall holds: it completes at <see cref="StartTicks"/> + <see cref="LatencyTicks"/>.</summary>
    private readonly record struct PendingFlush(SimulatedDatabase Db, ulong Block, long StartTicks, long LatencyTicks, long WaitTicks);

    /// <summary>A session's WRITELOG wait from <see cref="StartTicks"/> to <see cref="EndTicks"/>.</summary>
    private readonly record struct InFlightWait(SimulatedDatabase Db, long StartTicks, long EndTicks);

    private void Recover(long upAt)
    {
        _down = false;
        _restartAt = long.MaxValue;
        _upAt = long.MaxValue;
        _startTime = new DateTime(upAt, DateTimeKind.Utc);
        _sequence = 0;
        _gaps.Reset();
        _writeLogTasks = _writeLogTicks = _writeLogSignalTicks = _writeLogMaxTicks = 0;
        _hadrTasks = _hadrTicks = _hadrMaxTicks = 0;
        _logBufferTasks = _logBufferTicks = _logBufferMaxTicks = 0;
        _nextQueryStore = 0;
        ResetGovernance();
        _firedStarts = _firedCompletes = _firedWaits = 0; // the session starts again with the server
        foreach (var db in _databases)
        {
            db.ResetCumulative();
            db.AtLastQueryStore = null;
            db.Workload.ResumeAt(upAt);
        }
    }
}

namespace LogFlushMonitor.Simulation;

/// <summary>
/// The named simulated workloads (the names are command-line arguments). Each reproduces a shape from the
/// articles; <see cref="Default"/> shows them all at once.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item><c>mixed</c>: four instances (sql-a, sql-b, sql-c, and sql-d an Azure SQL Database), nine databases: autocommit, big transaction,
/// delayed durability, a WRITELOG spike on sql-b/payments (20 sessions of 250 commits/s with think time; 60 s after start, then every
/// 180 s), light traffic, a log stall on sql-a (its log device completes nothing for 105 s, 300 s after start, then
/// every 900 s), sql-c/archive in an availability group whose synchronous secondary slows down as in <c>ag-sync</c>,
/// and sql-d/ingest, General Purpose as in <c>azure-log-cap</c>, at its log-rate cap for 12 minutes of every 20 from 2
/// minutes after start. Runs forever.</item>
/// <item><c>autocommit</c>: sql1/shop, single-row autocommit: ~5,000 flushes/s per session, nearly all 512 B.</item>
/// <item><c>batched</c>: sql1/shop, the rows of <c>autocommit</c> (5,000 a second) committed 100 at a time: ~50 commits
/// and ~50 flushes a second of ~37 KB (a full 60 KB block when a batch fills the buffer), about the same log bytes, one
/// WRITELOG wait per 100 rows. <c>compare</c> of an <c>autocommit</c> recording with a <c>batched</c> one is the worked
/// example of docs/compare.md.</item>
/// <item><c>big-transaction</c>: sql1/warehouse, large transactions: mostly 61,440 B flushes, ~250/s.</item>
/// <item><c>delayed-durability</c>: sql1/audit, 5,000 commits/s per session, ~1 flush per 10 commits, 512 B..60 KB.</item>
/// <item><c>writelog-spike</c>: sql1/payments, autocommit from 50 sessions that each commit up to 200 times a second
/// (~5 ms of think time between commits, ~10,000 commits/s in all); latency rises from ~0.15 ms to ~30 ms from 30 s
/// after start (3 s ramp, 20 s plateau, 3 s ramp down), again every 120 s. With think time the sessions are not
/// always waiting, so the WRITELOG pressure rises with the latency (~1.6 s/s to ~40 s/s) as on a server whose
/// commits come from many clients; a couple of sessions in a tight loop would wait all the time at any latency.</item>
/// <item><c>writelog-spike-long</c>: the spike the shipped alert rules page on (deploy/prometheus/alerts.yml, whose
/// SqlServerWritelogSpike needs a 1-minute average over 10 ms held for 2 minutes, a blip of 20 s never does):
/// sql1/payments, autocommit from 20 sessions of up to 250 commits/s each; latency rises from ~0.15 ms to ~30 ms 60 s
/// after start (10 s ramp, 6 minutes plateau, 10 s ramp down), again every 20 minutes. The alert fires about 4
/// minutes after start and resolves about a minute after the plateau ends (README, "See it page").</item>
/// <item><c>restart</c>: sql1 with shop (autocommit) and audit (delayed); the instance goes down 32.5 s after
/// start and is back 4 s later with a new start time, every cumulative value and the event_sequence from zero.</item>
/// <item><c>log-stall</c>: sql1/shop, autocommit from 8 sessions that each commit up to 200 times a second; 30 s after
/// start the log device stops completing writes for 105 s (again every 300 s): each session's commit starts a flush
/// that does not complete and waits on WRITELOG for as long (8 flushes outstanding, 8 sessions waiting, the counters
/// flat), then everything completes at once and commits resume.</item>
/// <item><c>ag-sync</c>: sql1/orders, autocommit from 8 sessions that each commit up to 200 times a second, in
/// availability group ag_orders with a synchronous secondary (sql1-b) and an asynchronous one (sql1-dr). Each commit
/// waits for its local flush (~0.15 ms, unchanged throughout) and then HADR_SYNC_COMMIT for the synchronous secondary
/// (~0.5 ms); 30 s after start the secondary slows to ~25 ms (10 s ramp, 6 minutes plateau, again every 10 minutes):
/// sync-commit waits and Transaction Delay rise, its send queue grows, the local flushes stay fast. The simulated
/// sessions' pace does not include the sync wait.</item>
/// <item><c>drop-database</c>: sql1 with shop (autocommit) and scratch (big transaction); scratch is dropped 32.5 s
/// after start: its events stop and its rows vanish from the following polls.</item>
/// <item><c>log-full</c>: sql1/orders, the full recovery model, log backups stopped 90 minutes before the start (the
/// reason is LOG_BACKUP throughout); one session writes log at exactly 2 MiB/s (a 32 KB commit every 1/64 s). The log
/// file is 4 GiB with 1 GiB active, grows by 512 MiB up to its max size of 5 GiB, on a volume with 40 GiB free: the
/// headroom is the 5 GiB max, and the log is full 2,048 s (34 min 8 s) after the start, when writes stop (error 9002).
/// The time to full falls under 30 minutes 248 s after the start; SqlServerLogFullSoon fires about 5 minutes later.</item>
/// <item><c>log-grows</c>: the same log written at the same pace with log backups stopped, 95 % full (3,891 MiB of a
/// 4,096 MiB file) but free to grow (unlimited max size, 64 MiB growth, 500 GiB free on its volume): Percent Log Used
/// stays over 90 % as it grows, yet its headroom is 504 GiB, about 70 hours away. Nothing pages;
/// SqlServerLogNotTruncating warns, as the backups have stopped.</item>
/// <item><c>azure-log-cap</c>: an Azure SQL Database at its tier's log-rate cap: azure-gp/ingest, General Purpose
/// (GeneralPurpose, SQLDB_GP_Gen5_2), whose live cap (primary_max_log_rate) is 9,830,400 B/s (9.375 MB/s, one of the
/// values Microsoft's pages have given for 2 vCores; the DMV is what governs). Four sessions load 60 KB log blocks in
/// transactions of ~1 MB, wanting 1 MiB/s each (4 MiB/s, ~43 % of the cap) until 30 s after start and 4 MiB/s each
/// (16 MiB/s) from then on: the log-rate governor holds the database at the cap (avg_log_write_percent ~100), and the
/// sessions wait LOG_RATE_GOVERNOR ~1.7 s per second in all (each ~41 % of its time). Log writes take ~6 ms (General
/// Purpose publishes 5-7 ms), a sixth of it queued by I/O governance (io_stall_queued_write_ms). The commit budget's
/// largest part is then the log-rate cap.</item>
/// <item><c>ag-async-lag</c>: sql1/orders in ag_orders as in <c>ag-sync</c>, but its synchronous secondary (sql1-b)
/// stays fast (~0.5 ms) and the link to the asynchronous one (sql1-dr) carries 200 KiB/s from 30 s after start while the
/// primary writes ~0.9 MB/s: sql1-dr's send queue grows ~0.7 MB/s and its time behind (the primary's last_commit_time
/// minus its own) ~0.78 s per second, from 3 s to past the 60 s default threshold about 103 s after start. The
/// synchronous secondary is ~0.5 ms behind throughout.</item>
/// <item><c>ag-sync-lost</c>: sql1/orders in ag_orders as in <c>ag-async-lag</c> without the slow link, but 30 s after
/// start its synchronous secondary (sql1-b) loses its connection for 10 minutes: NOT SYNCHRONIZING, commits no longer
/// wait HADR_SYNC_COMMIT for it, nothing is sent to it (its send queue holds all the log since) and its time behind
/// grows a second every second, past the 10 s default threshold 40 s after start.</item>
/// </list>
/// </remarks>
public static class SimulationScenarios
{
    /// <summary>The scenario <c>run --simulate</c> uses when none is named.</summary>
    public const string Default = "mixed";

    private const double AutocommitLatencyUs = 150;
    private const double BigBlockLatencyUs = 300;
    private const double DelayedLatencyUs = 200;
    private const long OneGbKb = 1024 * 1024;

    // Sessions with think time (an open-ish loop): many clients, each committing at most 200 times a second.
    private const int SpikeSessions = 50;
    private const double ThinkingSessionCommitsPerSecond = 200;
    private const int StallSessions = 8;

    // writelog-spike-long: the sessions and pace of mixed's sql-b/payments, a spike long enough for the shipped rules.
    private const int LongSpikeSessions = 20;
    private const double LongSpikeCommitsPerSecond = 250;

    // azure-log-cap: a 2-vCore General Purpose database's cap as the live DMV would give it, ~6 ms log writes (5-7 ms
    // published), a sixth of each queued by I/O governance; four loaders wanting 1 MiB/s each, then 4 MiB/s each.
    private const long GeneralPurposeCap = 9_830_400;
    private static readonly AzureGovernance AzureGeneralPurpose = new("GeneralPurpose", "SQLDB_GP_Gen5_2", GeneralPurposeCap, 1.0 / 6);

    /// <summary>Every scenario name.</summary>
    public static IReadOnlyList<string> Names { get; } =
        [Default, "autocommit", "batched", "big-transaction", "delayed-durability", "writelog-spike", "writelog-spike-long", "log-stall", "ag-sync", "restart", "drop-database", "log-full", "log-grows",
            "azure-log-cap", "ag-async-lag", "ag-sync-lost"];

    // log-full and log-grows (docs/simulate.md): log written at 2 MiB/s, log backups stopped 90 minutes before the start.
    private const long SteadyLogBytesPerSecond = 2L << 20;
    private const long FourGbKb = 4L << 20;

    /// <summary>Creates a scenario by name (case-insensitive).</summary>
    /// <exception cref="ArgumentException">The name is unknown (the message lists the valid names) or an option is invalid.</exception>
    public static WorkloadSimulation Create(string name, SimulationOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(name);
        options ??= new SimulationOptions();
        options.Validate();
        var b = new Builder(options);
        switch (name.ToLowerInvariant())
        {
            case "autocommit":
                b.Instance("sql1", b.Autocommit(5, "shop", 1, AutocommitLatencyUs, null, complete: true));
                break;
            case "batched":
                b.Instance("sql1", b.Batched(5, "shop", 1, AutocommitLatencyUs, complete: true));
                break;
            case "big-transaction":
                b.Instance("sql1", b.BigTransaction(5, "warehouse", 1, complete: true));
                break;
            case "delayed-durability":
                b.Instance("sql1", b.Delayed(5, "audit", 1, complete: true));
                break;
            case "writelog-spike":
                var spike = new WritelogSpike(TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(120), TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(20), 30_000);
                b.Instance("sql1", b.Autocommit(5, "payments", SpikeSessions, AutocommitLatencyUs, spike, complete: true, commitsPerSecond: ThinkingSessionCommitsPerSecond));
                break;
            case "writelog-spike-long":
                var longSpike = new WritelogSpike(TimeSpan.FromSeconds(60), TimeSpan.FromMinutes(20), TimeSpan.FromSeconds(10), TimeSpan.FromMinutes(6), 30_000);
                b.Instance("sql1", b.Autocommit(5, "payments", LongSpikeSessions, AutocommitLatencyUs, longSpike, complete: true, commitsPerSecond: LongSpikeCommitsPerSecond));
                break;
            case "log-stall":
                b.Instance(
                    "sql1",
                    null,
                    new LogStall(TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(300), TimeSpan.FromSeconds(105)),
                    b.Autocommit(5, "shop", StallSessions, AutocommitLatencyUs, null, complete: true, commitsPerSecond: ThinkingSessionCommitsPerSecond));
                break;
            case "ag-sync":
                b.Instance("sql1", b.InGroup(b.Autocommit(5, "orders", StallSessions, AutocommitLatencyUs, null, complete: true, commitsPerSecond: ThinkingSessionCommitsPerSecond), "sql1"));
                break;
            case "azure-log-cap":
                // The load from 30 s on, for good (a window longer than any run, which the period never repeats).
                var always = new WritelogSpike(TimeSpan.FromSeconds(30), TimeSpan.FromDays(3650), TimeSpan.Zero, TimeSpan.FromDays(3650), 0);
                b.Instance(new SimulatedInstance("azure-gp", b.Instances.Count, options, [b.GovernedLoad(5, "ingest", always)], azure: AzureGeneralPurpose));
                break;
            case "ag-async-lag":
                b.Instance("sql1", b.InGroup(
                    b.Autocommit(5, "orders", StallSessions, AutocommitLatencyUs, null, complete: true, commitsPerSecond: ThinkingSessionCommitsPerSecond),
                    "sql1", slowdown: null, lag: new AsyncLag(TimeSpan.FromSeconds(30), 200 * 1024, 3)));
                break;
            case "ag-sync-lost":
                b.Instance("sql1", b.InGroup(
                    b.Autocommit(5, "orders", StallSessions, AutocommitLatencyUs, null, complete: true, commitsPerSecond: ThinkingSessionCommitsPerSecond),
                    "sql1", slowdown: null, lag: null, loss: new SyncLoss(TimeSpan.FromSeconds(30), TimeSpan.FromMinutes(10))));
                break;
            case "restart":
                b.Instance(
                    "sql1",
                    new RestartPlan(TimeSpan.FromSeconds(32.5), TimeSpan.FromSeconds(4)),
                    b.Autocommit(5, "shop", 1, AutocommitLatencyUs, null, complete: true),
                    b.Delayed(6, "audit", 1, complete: true));
                break;
            case "log-full":
                // The log cannot be reused (no log backup for 90 minutes) and grows toward its 5 GiB max size: 1 GiB active of
                // a 4 GiB file (growth 512 MiB) on a volume with 40 GiB free. Full after (5,120 - 1,024) MiB / 2 MiB/s = 2,048 s.
                b.Instance("sql1", b.SteadyLog(5, "orders", FourGbKb, new LogPlan(
                    InitialActiveBytes: 1L << 30, MaxSizePages: 655_360, GrowthPages: 65_536, VolumeTotalBytes: 100L << 30, VolumeFreeBytes: 40L << 30,
                    LastBackupBefore: TimeSpan.FromMinutes(90), Backups: false)));
                break;
            case "log-grows":
                // The same log written at the same pace, 95 % full (3,891 MiB of 4,096), but it can grow: unlimited max size,
                // growth 64 MiB, 500 GiB free on its volume. Its headroom is 504 GiB: about 70 hours at 2 MiB/s.
                b.Instance("sql1", b.SteadyLog(5, "orders", FourGbKb, new LogPlan(
                    InitialActiveBytes: 3_891L << 20, MaxSizePages: -1, GrowthPages: 8_192, VolumeTotalBytes: 1L << 40, VolumeFreeBytes: 500L << 30,
                    LastBackupBefore: TimeSpan.FromMinutes(90), Backups: false)));
                break;
            case "drop-database":
                b.Instance(
                    "sql1",
                    b.Autocommit(5, "shop", 1, AutocommitLatencyUs, null, complete: true),
                    b.BigTransaction(6, "scratch", 1, complete: true, dropAfter: TimeSpan.FromSeconds(32.5)));
                break;
            case Default:
                var recurring = new WritelogSpike(TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(180), TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(25), 25_000);
                b.Instance(
                    "sql-a",
                    null,
                    new LogStall(TimeSpan.FromSeconds(300), TimeSpan.FromSeconds(900), TimeSpan.FromSeconds(105)),
                    b.Autocommit(5, "orders", 1, AutocommitLatencyUs, null, complete: true),
                    b.BigTransaction(6, "reporting", 1, complete: true),
                    b.Delayed(7, "audit", 1, complete: false));
                b.Instance(
                    "sql-b",
                    b.Autocommit(5, "payments", 20, AutocommitLatencyUs, recurring, complete: true, commitsPerSecond: 250),
                    b.Autocommit(6, "inventory", 2, 250, null, complete: false, commitsPerSecond: 200));
                b.Instance(
                    "sql-c",
                    b.Delayed(5, "telemetry", 1, complete: false),
                    b.BigTransaction(6, "staging", 1, complete: false),
                    b.InGroup(b.Autocommit(7, "archive", 1, 400, null, complete: false, commitsPerSecond: 20), "sql-c"));
                // An Azure SQL Database whose bulk load sits at its tier's cap for 12 minutes of every 20 (the
                // first 2 minutes after start): SqlServerLogRateAtCap fires in each window.
                var loads = new WritelogSpike(TimeSpan.FromMinutes(2), TimeSpan.FromMinutes(20), TimeSpan.FromSeconds(10), TimeSpan.FromMinutes(12), 0);
                b.Instance(new SimulatedInstance("sql-d", b.Instances.Count, options, [b.GovernedLoad(5, "ingest", loads)], azure: AzureGeneralPurpose));
                break;
            default:
                throw new ArgumentException($"Unknown scenario '{name}'. Valid scenarios: {string.Join(", ", Names)}.", nameof(name));
        }

        return new WorkloadSimulation(name.ToLowerInvariant(), options, b.Instances);
    }

    /// <summary>Assembles instances and databases with derived seeds, so each database's stream depends only on its position.</summary>
    private sealed class Builder(SimulationOptions options)
    {
        private int _db;

        public List<SimulatedInstance> Instances { get; } = [];

        public void Instance(string name, params SimulatedDatabase[] databases) => Instance(name, null, null, databases);

        public void Instance(string name, RestartPlan? restart, params SimulatedDatabase[] databases) => Instance(name, restart, null, databases);

        public void Instance(string name, RestartPlan? restart, LogStall? stall, params SimulatedDatabase[] databases)
        {
            Instances.Add(new SimulatedInstance(name, Instances.Count, options, [.. databases], restart, stall));
            _db = 0;
        }

        /// <summary>An instance made by the caller (an Azure SQL Database), its databases built before it.</summary>
        public void Instance(SimulatedInstance instance)
        {
            Instances.Add(instance);
            _db = 0;
        }

        /// <summary>Four loaders of 60 KB blocks under the General Purpose cap: 1 MiB/s each, 4 MiB/s each in the load's windows.</summary>
        public SimulatedDatabase GovernedLoad(int id, string name, WritelogSpike load) =>
            Database(id, name, complete: true, null, rng => new GovernedLoadWorkload(rng, new LatencyModel(6_000, null), Sessions(4), options.RateScale,
                GeneralPurposeCap, quietBytesPerSecond: 1 << 20, loadBytesPerSecond: 4 << 20, load));

        public SimulatedDatabase Autocommit(int id, string name, int sessions, double latencyUs, WritelogSpike? spike, bool complete, double commitsPerSecond = 5000) =>
            Database(id, name, complete, null, rng => new AutocommitWorkload(rng, new LatencyModel(latencyUs, spike), Sessions(sessions), options.RateScale, commitsPerSecond));

        public SimulatedDatabase Batched(int id, string name, int sessions, double latencyUs, bool complete) =>
            Database(id, name, complete, null, rng => new BatchedWorkload(rng, new LatencyModel(latencyUs, null), Sessions(sessions), options.RateScale));

        public SimulatedDatabase BigTransaction(int id, string name, int sessions, bool complete, TimeSpan? dropAfter = null) =>
            Database(id, name, complete, dropAfter, rng => new BigTransactionWorkload(rng, new LatencyModel(BigBlockLatencyUs, null), Sessions(sessions), options.RateScale));

        public SimulatedDatabase Delayed(int id, string name, int sessions, bool complete) =>
            Database(id, name, complete, null, rng => new DelayedDurabilityWorkload(rng, new LatencyModel(DelayedLatencyUs, null), Sessions(sessions), options.RateScale));

        /// <summary>The database in availability group ag_NAME with a synchronous secondary that slows down (ag-sync).</summary>
        public SimulatedDatabase InGroup(SimulatedDatabase db, string primary) => InGroup(db, primary,
            new WritelogSpike(TimeSpan.FromSeconds(30), TimeSpan.FromMinutes(10), TimeSpan.FromSeconds(10), TimeSpan.FromMinutes(6), 25_000), null);

        /// <summary>The database in availability group ag_NAME: a synchronous secondary (slowing as <paramref name="slowdown"/> says) and an asynchronous one (lagging as <paramref name="lag"/> says).</summary>
        public SimulatedDatabase InGroup(SimulatedDatabase db, string primary, WritelogSpike? slowdown, AsyncLag? lag, SyncLoss? loss = null) => new(db.Id, db.Name, db.Workload, db.EmitComplete, db.LogSizeKb, db.DropAfter, db.Log.Plan)
        {
            Replica = new SyncReplica("ag_" + db.Name, primary, primary + "-b", primary + "-dr", 500, slowdown) { AsyncLag = lag, Loss = loss },
        };

        /// <summary>A database written at a steady 2 MiB/s whose log is set as <paramref name="log"/> says (log-full, log-grows).</summary>
        public SimulatedDatabase SteadyLog(int id, string name, long logSizeKb, LogPlan log) =>
            Database(id, name, complete: true, null, rng => new SteadyLogWorkload(rng, new LatencyModel(BigBlockLatencyUs, null), options.RateScale, SteadyLogBytesPerSecond), logSizeKb, log);

        private int Sessions(int scenarioDefault) => options.SessionsPerDatabase ?? scenarioDefault;

        private SimulatedDatabase Database(int id, string name, bool complete, TimeSpan? dropAfter, Func<SimRandom, Workload> workload, long logSizeKb = OneGbKb, LogPlan? log = null)
        {
            // Instances are added after their databases are built: the next instance index is this one's.
            var rng = new SimRandom(SimRandom.Derive(options.Seed, Instances.Count, _db++));
            return new SimulatedDatabase(id, name, workload(rng), complete && options.FlushCompleteEvents, logSizeKb, dropAfter, log);
        }
    }
}

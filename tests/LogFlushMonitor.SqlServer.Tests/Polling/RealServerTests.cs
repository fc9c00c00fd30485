using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Tests.RealServer;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>The pollers and check against a real SQL Server: the one LOGFLUSHMONITOR_TEST_SQLSERVER names, else one in Docker.</summary>
[Collection(RealSqlServerCollection.Name)]
[Trait("Category", RealSqlServerCollection.Category)]
public class RealServerTests(RealSqlServerFixture server)
{
    private string ConnectionString() => server.Require();

    [SkippableFact]
    public async Task Pollers_read_counters_waits_files_and_start_time_from_a_real_server()
    {
        var cs = ConnectionString();
        var aggregator = new LogFlushAggregator();
        var sink = new RecordingSink(aggregator);
        var options = new SqlServerInstanceOptions { Name = "real", ConnectionString = cs };
        await using var poller = new InstancePoller(SqlServerDataSource.Create(options, new SqlServerSourceOptions()), new SqlServerSourceOptions(), sink, new SourceHealth(), new CapturingLogger(), TimeProvider.System);
        await poller.PollOnceAsync(CancellationToken.None);
        await Task.Delay(TimeSpan.FromSeconds(1));
        await poller.PollOnceAsync(CancellationToken.None);

        Assert.Contains(sink.Values<CounterRow>(), c => c is { CounterName: "Log Flushes/sec", CounterInstance: "_Total", CounterType: PerfCounterType.BulkCount });
        Assert.DoesNotContain(sink.Values<CounterRow>(), c => c.CounterInstance == "mssqlsystemresource");
        Assert.Contains(sink.Values<WaitStatsRow>(), w => w.WaitType == "WRITELOG");
        Assert.Contains(sink.Values<FileStatsRow>(), f => f.DatabaseName == "master");
        Assert.Equal(2, sink.Values<ServerStartRow>().Select(s => s.StartTimeUtc).Count(t => t == sink.Values<ServerStartRow>()[0].StartTimeUtc));
        Assert.Contains(poller.Databases, d => d is { Name: "tempdb", State: "ONLINE" });
        Assert.Equal(0, aggregator.SnapshotInstances().Single().Restarts);
    }

    /// <summary>
    /// The availability-replica statement on a real server without availability groups (the test servers are stand-alone
    /// containers): the join's real types bind, it answers no rows and no error, the poll completes, and nothing is logged
    /// about it. The HADR_SYNC_COMMIT row of the wait stats is there at zero.
    /// </summary>
    [SkippableFact]
    public async Task The_replica_poll_answers_no_rows_and_no_error_on_a_server_without_availability_groups()
    {
        var cs = ConnectionString();
        var sink = new RecordingSink();
        var health = new SourceHealth();
        var log = new CapturingLogger();
        var options = new SqlServerInstanceOptions { Name = "real", ConnectionString = cs };
        await using var poller = new InstancePoller(SqlServerDataSource.Create(options, new SqlServerSourceOptions()), new SqlServerSourceOptions(), sink, health, log, TimeProvider.System);
        await poller.PollOnceAsync(CancellationToken.None);

        Assert.Empty(sink.Values<ReplicaRow>());
        Assert.Single(sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.HadrReplicas);
        Assert.DoesNotContain(log.Lines, l => l.Message.Contains("hadr_replicas", StringComparison.Ordinal) || l.EventId == 520);
        Assert.True(health.IsUp("real", InstancePoller.Component));
        Assert.Contains(sink.Values<WaitStatsRow>(), w => w.WaitType == "HADR_SYNC_COMMIT");
    }

    /// <summary>
    /// The waiting-tasks statement under a workload: sessions committing single rows in a loop on a database of their
    /// own, while the poller reads sys.dm_os_waiting_tasks with sys.dm_exec_requests. The types of the real result set
    /// must map (an int or bigint mismatch fails Dapper), every watched database gets a row, and over a few hundred polls
    /// some commit is caught in its WRITELOG wait on the workload's database (a fast log makes each wait short, so a
    /// single poll may see none).
    /// </summary>
    [SkippableFact]
    public async Task The_writelog_waiters_poll_runs_on_a_real_server_under_a_commit_workload()
    {
        var cs = ConnectionString();
        var database = "lfm_waiters_" + Guid.NewGuid().ToString("N")[..8];
        await using var admin = new Microsoft.Data.SqlClient.SqlConnection(cs);
        await admin.OpenAsync();
        await Dapper.SqlMapper.ExecuteAsync(admin, $"CREATE DATABASE [{database}]; ALTER DATABASE [{database}] SET RECOVERY FULL;");
        using var stop = new CancellationTokenSource();
        var workers = new List<Task>();
        try
        {
            var databaseId = await Dapper.SqlMapper.ExecuteScalarAsync<int>(admin, "SELECT DB_ID(@database)", new { database });
            await using (var setup = new Microsoft.Data.SqlClient.SqlConnection(cs))
            {
                await setup.OpenAsync();
                await setup.ChangeDatabaseAsync(database);
                await Dapper.SqlMapper.ExecuteAsync(setup, "CREATE TABLE dbo.t (id int IDENTITY PRIMARY KEY, v char(200) NOT NULL);");
            }

            for (var w = 0; w < 8; w++)
            {
                workers.Add(Task.Run(async () =>
                {
                    await using var work = new Microsoft.Data.SqlClient.SqlConnection(cs);
                    await work.OpenAsync();
                    await work.ChangeDatabaseAsync(database);
                    while (!stop.IsCancellationRequested)
                    {
                        await Dapper.SqlMapper.ExecuteAsync(work, "INSERT dbo.t (v) VALUES ('x');");
                    }
                }));
            }

            var sink = new RecordingSink();
            var options = new SqlServerInstanceOptions { Name = "real", ConnectionString = cs };
            var logger = new CapturingLogger();
            await using var poller = new InstancePoller(SqlServerDataSource.Create(options, new SqlServerSourceOptions()), new SqlServerSourceOptions(), sink, new SourceHealth(), logger, TimeProvider.System);
            var deadline = DateTime.UtcNow.AddSeconds(60);
            while (DateTime.UtcNow < deadline && !sink.Values<WriteLogWaitersRow>().Any(s => s.DatabaseId == databaseId && s.Sessions > 0))
            {
                await poller.PollOnceAsync(CancellationToken.None);
            }

            Assert.DoesNotContain(logger.Lines, l => l.EventId == 501); // no kind failed, the waiting tasks included
            var samples = sink.Values<WriteLogWaitersRow>();
            Assert.Contains(samples, s => s.DatabaseName == "master" && s.DatabaseId == 1);
            Assert.All(samples, s => Assert.True(s.Sessions >= 0 && s.LongestWaitMs >= 0 && s.LongestWaitMs < 60_000, $"{s}"));
            var caught = samples.Where(s => s.DatabaseId == databaseId && s.Sessions > 0).ToList();
            Assert.True(caught.Count > 0, $"no poll in 60 s caught one of 8 committing sessions in WRITELOG ({samples.Count(s => s.DatabaseId == databaseId)} polls of {database})");
            Assert.All(caught, s => Assert.InRange(s.Sessions, 1, 8));
            Assert.Equal(samples.Count(s => s.DatabaseName == "master"), sink.Of<PollEnded>().Count(p => p.Signal == SignalRegistry.WriteLogWaiters));
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(workers).ContinueWith(_ => { }, TaskScheduler.Default);
            Microsoft.Data.SqlClient.SqlConnection.ClearAllPools();
            await Dapper.SqlMapper.ExecuteAsync(admin, $"ALTER DATABASE [{database}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [{database}];");
        }
    }

    /// <summary>
    /// The top log writers' statement on a real server under a workload: a session named "lfm-bulk" holds an open
    /// transaction that inserted 2,000 rows of 200 bytes, while sessions named "lfm-oltp-N" commit single rows. The
    /// real result set's types must map, the open transaction's log bytes must show under its program name (at least the
    /// rows' size), and no database ever has more than the top 5 programs and "other".
    /// </summary>
    [SkippableFact]
    public async Task The_log_writers_poll_names_the_program_holding_an_open_transaction_on_a_real_server()
    {
        var cs = ConnectionString();
        var database = "lfm_writers_" + Guid.NewGuid().ToString("N")[..8];
        await using var admin = new Microsoft.Data.SqlClient.SqlConnection(cs);
        await admin.OpenAsync();
        await Dapper.SqlMapper.ExecuteAsync(admin, $"CREATE DATABASE [{database}]; ALTER DATABASE [{database}] SET RECOVERY FULL;");
        using var stop = new CancellationTokenSource();
        var workers = new List<Task>();
        try
        {
            string Named(string app) => new Microsoft.Data.SqlClient.SqlConnectionStringBuilder(cs) { ApplicationName = app, InitialCatalog = database }.ConnectionString;
            await using (var setup = new Microsoft.Data.SqlClient.SqlConnection(Named("lfm-setup")))
            {
                await setup.OpenAsync();
                await Dapper.SqlMapper.ExecuteAsync(setup, "CREATE TABLE dbo.t (id int IDENTITY PRIMARY KEY, v char(200) NOT NULL);");
            }

            for (var w = 0; w < 7; w++)
            {
                var app = "lfm-oltp-" + w;
                workers.Add(Task.Run(async () =>
                {
                    await using var work = new Microsoft.Data.SqlClient.SqlConnection(Named(app));
                    await work.OpenAsync();
                    while (!stop.IsCancellationRequested)
                    {
                        await Dapper.SqlMapper.ExecuteAsync(work, "INSERT dbo.t (v) VALUES ('x');");
                    }
                }));
            }

            await using var bulk = new Microsoft.Data.SqlClient.SqlConnection(Named("lfm-bulk"));
            await bulk.OpenAsync();
            await using var open = (Microsoft.Data.SqlClient.SqlTransaction)await bulk.BeginTransactionAsync();
            await Dapper.SqlMapper.ExecuteAsync(bulk, "INSERT dbo.t (v) SELECT TOP (2000) 'y' FROM sys.all_objects AS a CROSS JOIN sys.all_objects AS b;", transaction: open);

            var sink = new RecordingSink();
            var options = new SqlServerInstanceOptions { Name = "real", ConnectionString = cs };
            var logger = new CapturingLogger();
            await using var poller = new InstancePoller(SqlServerDataSource.Create(options, new SqlServerSourceOptions()), new SqlServerSourceOptions(), sink, new SourceHealth(), logger, TimeProvider.System);
            await poller.PollOnceAsync(CancellationToken.None);
            await open.RollbackAsync();

            Assert.DoesNotContain(logger.Lines, l => l.EventId == 501); // no kind failed, the transactions included
            var writers = sink.Values<LogWritersRow>().Where(w => w.DatabaseName == database).ToList();
            var held = Assert.Single(writers, w => w.Application == "lfm-bulk");
            Assert.True(held.LogBytesUsed >= 2000 * 200, $"{held}");
            Assert.True(held.LogBytesReserved > 0, $"{held}");
            Assert.Equal(1, held.Transactions);
            Assert.All(sink.Values<LogWritersRow>().GroupBy(w => w.DatabaseId), g => Assert.True(g.Count() <= 6, string.Join(", ", g)));
            Assert.Single(sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.LogWriters);
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(workers).ContinueWith(_ => { }, TaskScheduler.Default);
            Microsoft.Data.SqlClient.SqlConnection.ClearAllPools();
            await Dapper.SqlMapper.ExecuteAsync(admin, $"ALTER DATABASE [{database}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [{database}];");
        }
    }

    /// <summary>
    /// The log's space on a real server (issue 32): both statements bind their real types, a database in the full recovery
    /// model that never had a full backup (so it truncates at checkpoints) shows ACTIVE_TRANSACTION while an open
    /// transaction holds its log across a CHECKPOINT, its log file's size, max size and volume come back in the documented
    /// units, and the headroom and growth settings follow. What the beliefs of docs/sqlserver.md ("The log's space") rest on.
    /// </summary>
    [SkippableFact]
    public async Task The_log_space_and_log_file_polls_read_a_real_servers_log_and_its_room()
    {
        var cs = ConnectionString();
        var database = "lfm_logspace_" + Guid.NewGuid().ToString("N")[..8];
        await using var admin = new Microsoft.Data.SqlClient.SqlConnection(cs);
        await admin.OpenAsync();
        await Dapper.SqlMapper.ExecuteAsync(admin, $"CREATE DATABASE [{database}]; ALTER DATABASE [{database}] SET RECOVERY FULL;");
        try
        {
            var inDatabase = new Microsoft.Data.SqlClient.SqlConnectionStringBuilder(cs) { InitialCatalog = database }.ConnectionString;
            await using var holder = new Microsoft.Data.SqlClient.SqlConnection(inDatabase);
            await holder.OpenAsync();
            await Dapper.SqlMapper.ExecuteAsync(holder, "CREATE TABLE dbo.t (id int IDENTITY PRIMARY KEY, v char(500) NOT NULL);");
            await using var open = (Microsoft.Data.SqlClient.SqlTransaction)await holder.BeginTransactionAsync();
            await Dapper.SqlMapper.ExecuteAsync(holder, "INSERT dbo.t (v) SELECT TOP (2000) 'y' FROM sys.all_objects AS a CROSS JOIN sys.all_objects AS b;", transaction: open);
            await using (var checkpoint = new Microsoft.Data.SqlClient.SqlConnection(inDatabase))
            {
                await checkpoint.OpenAsync();
                await Dapper.SqlMapper.ExecuteAsync(checkpoint, "CHECKPOINT;");
            }

            var sink = new RecordingSink();
            var logger = new CapturingLogger();
            var options = new SqlServerInstanceOptions { Name = "real", ConnectionString = cs };
            await using var poller = new InstancePoller(SqlServerDataSource.Create(options, new SqlServerSourceOptions()), new SqlServerSourceOptions(), sink, new SourceHealth(), logger, TimeProvider.System);
            await poller.PollOnceAsync(CancellationToken.None);
            await open.RollbackAsync();

            Assert.DoesNotContain(logger.Lines, l => l.EventId == 501 && (l.Message.Contains("log_space", StringComparison.Ordinal) || l.Message.Contains("log_files", StringComparison.Ordinal)));
            var space = Assert.Single(sink.Values<LogSpaceRow>(), r => r.DatabaseName == database);
            Assert.Equal(("FULL", "ACTIVE_TRANSACTION"), (space.RecoveryModel, space.Reason));
            Assert.True(space.ActiveBytes >= 2000 * 500 && space.ActiveBytes <= space.TotalBytes, $"{space}");
            Assert.True(space.Vlfs >= 1 && space.ActiveVlfs >= 1 && space.ActiveVlfs <= space.Vlfs, $"{space}");
            Assert.Null(space.LogBackupAgeSeconds); // never backed up: 1900-01-01, no age
            Assert.Contains(LogReuseWaits.Bounded(space.Reason!), LogReuseWaits.Known);

            var file = Assert.Single(sink.Values<LogFileRow>(), f => f.DatabaseName == database);
            // The log file's size in 8 KB pages agrees with the DMV's size in bytes; a new database's max size is unlimited
            // or 2 TB; the volume under it is read (a container's data volume).
            Assert.Equal(space.TotalBytes!.Value, file.SizePages * 8192, (double)(1 << 20));
            Assert.True(file.MaxSizePages is -1 or 268_435_456, $"{file}");
            Assert.True(file.VolumeAvailableBytes > 0 && file.VolumeTotalBytes >= file.VolumeAvailableBytes, $"{file}");
            Assert.True(LogFilesSignal.Room([file]).HeadroomBytes > file.SizePages * 8192, $"{file}");
            Assert.Single(sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.LogSpace);
            Assert.Single(sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.LogFiles);
        }
        finally
        {
            Microsoft.Data.SqlClient.SqlConnection.ClearAllPools();
            await Dapper.SqlMapper.ExecuteAsync(admin, $"ALTER DATABASE [{database}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [{database}];");
        }
    }

    [SkippableFact]
    public async Task Check_reads_the_version_and_permissions_of_a_real_server()
    {
        var cs = ConnectionString();
        var result = await InstanceChecker.CheckAsync(new SqlServerInstanceOptions { Name = "real", ConnectionString = cs }, new SqlServerSourceOptions(), null, CancellationToken.None);

        Assert.NotNull(result.ProductVersion);
        Assert.Contains(result.Permissions, p => p.Permission == "VIEW SERVER STATE" && p.Held is not null);
        Assert.NotNull(result.Encrypted);
    }
}

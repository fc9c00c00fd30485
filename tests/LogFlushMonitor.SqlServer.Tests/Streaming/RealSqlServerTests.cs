using Dapper;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.SqlServer.Tests.RealServer;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Tests.Streaming;

/// <summary>The live stream against a real SQL Server: the one LOGFLUSHMONITOR_TEST_SQLSERVER names, else one in Docker.</summary>
[Collection(RealSqlServerCollection.Name)]
[Trait("Category", RealSqlServerCollection.Category)]
public sealed class RealSqlServerTests(RealSqlServerFixture server)
{

    [SkippableFact]
    public async Task Single_row_commits_flush_512_bytes_a_big_transaction_flushes_large_blocks_and_WRITELOG_lands_on_the_database()
    {
        var connectionString = server.Require();
        var suffix = Guid.NewGuid().ToString("N")[..8];
        var database = "lfm_workload_" + suffix;
        await using var admin = new SqlConnection(connectionString);
        await admin.OpenAsync();
        await admin.ExecuteAsync($"CREATE DATABASE [{database}]; ALTER DATABASE [{database}] SET RECOVERY FULL;");
        try
        {
            var databaseId = await admin.ExecuteScalarAsync<int>("SELECT DB_ID(@database)", new { database });
            var aggregator = new LogFlushAggregator();
            var pipeline = new SamplePipeline(aggregator);
            var health = new SourceHealth();
            var options = new SqlServerInstanceOptions
            {
                Name = "real", SessionName = "lfm_test_" + suffix, Mode = CollectionMode.Stream, IncludeDatabases = [database],
                DropSessionOnStop = true, MaxDispatchLatencySeconds = 1,
            };
            using var cts = new CancellationTokenSource();
            var consume = pipeline.RunAsync(cts.Token);
            using var source = TestInstance.Create(options, connectionString, pipeline.DroppingWriter, pipeline.Polls, health, new SqlServerSourceOptions());
            var run = source.RunEventsAsync(cts.Token);
            await StreamRows.Eventually(() => health.IsUp("real", "stream") || source.Stream.Reader.Connections > 0, "the stream to connect", 60);
            await Task.Delay(2000); // the session dispatches its first buffers

            await using var work = new SqlConnection(connectionString);
            await work.OpenAsync();
            await work.ChangeDatabaseAsync(database);
            await work.ExecuteAsync("CREATE TABLE dbo.t (id int IDENTITY PRIMARY KEY, v char(200) NOT NULL);");
            var before = Sizes(aggregator, databaseId);
            var counterBefore = await FlushCounter(admin, database);
            for (var i = 0; i < 5000; i++)
            {
                await work.ExecuteAsync("INSERT dbo.t (v) VALUES ('x');");
            }

            await StreamRows.Eventually(() => Sizes(aggregator, databaseId).Count - before.Count >= 5000, "5,000 flushes", 120);
            await Task.Delay(3000); // the last buffers dispatch
            await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(30));
            var counterIncrease = await FlushCounter(admin, database) - counterBefore;
            var afterSmall = Sizes(aggregator, databaseId);

            // The server's own count of flushes agrees with the events received, within what was lost on the way.
            var received = afterSmall.Count - before.Count;
            var lost = source.Stream.Reader.SequenceLost;
            Assert.True(Math.Abs(counterIncrease - received) <= lost + Math.Max(50, counterIncrease / 20),
                $"Log Flushes/sec rose by {counterIncrease}, {received} log_flush_start events arrived, {lost} were lost");
            var small = afterSmall.Count - before.Count;
            var small512 = afterSmall.CountAtMost(512) - before.CountAtMost(512);
            Assert.True(small512 > small / 2, $"{small512} of {small} flushes were 512 bytes or less");

            await work.ExecuteAsync("BEGIN TRAN; INSERT dbo.t (v) SELECT TOP (5000) 'y' FROM sys.all_objects AS a CROSS JOIN sys.all_objects AS b; COMMIT;");
            await Task.Delay(5000);
            await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(30));
            var afterBig = Sizes(aggregator, databaseId);
            var big = afterBig.Count - afterSmall.Count;
            var bigLarge = afterBig.CountAbove(32767) - afterSmall.CountAbove(32767);
            Assert.True(big > 0 && bigLarge > big / 2, $"{bigLarge} of {big} flushes of the big transaction were 32 KB or more");

            var writeLog = aggregator.Snapshot().Single(d => d.DatabaseId == databaseId).Waits.SingleOrDefault(w => w.WaitType == "WRITELOG");
            Assert.NotNull(writeLog);
            Assert.True(writeLog.Count > 0);

            await cts.CancelAsync();
            await run.WaitAsync(TimeSpan.FromSeconds(30));
            await consume;
            var left = await admin.ExecuteScalarAsync<int>("SELECT COUNT(*) FROM sys.server_event_sessions WHERE name = @name", new { name = options.SessionName });
            Assert.Equal(0, left); // DropSessionOnStop
        }
        finally
        {
            await admin.ExecuteAsync($"ALTER DATABASE [{database}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [{database}];");
        }
    }

    /// <summary>
    /// Restarts the server under a running stream: the container through Testcontainers (stop, start on the same
    /// port), or an external server with SHUTDOWN WITH NOWAIT when LOGFLUSHMONITOR_TEST_SQLSERVER_RESTARTABLE=1.
    /// </summary>
    [SkippableFact]
    public async Task The_stream_recovers_after_a_server_restart()
    {
        var connectionString = server.Require();
        Skip.If(server.RestartSkipReason is not null, server.RestartSkipReason);
        var suffix = Guid.NewGuid().ToString("N")[..8];
        var aggregator = new LogFlushAggregator();
        var pipeline = new SamplePipeline(aggregator);
        var health = new SourceHealth();
        var options = new SqlServerInstanceOptions { Name = "real", SessionName = "lfm_restart_" + suffix, Mode = CollectionMode.Stream, DropSessionOnStop = true, MaxDispatchLatencySeconds = 1 };
        using var cts = new CancellationTokenSource();
        var consume = pipeline.RunAsync(cts.Token);
        using var source = TestInstance.Create(options, connectionString, pipeline.DroppingWriter, pipeline.Polls, health,
            new SqlServerSourceOptions { ReconnectDelay = TimeSpan.FromSeconds(1), MaxReconnectDelay = TimeSpan.FromSeconds(5) });
        var run = source.RunEventsAsync(cts.Token);
        await StreamRows.Eventually(() => source.Stream.Reader.Connections > 0, "the stream to connect", 60);

        await server.RestartAsync();

        await StreamRows.Eventually(() => source.Stream.Reader.Connections >= 2, "the stream to reconnect after the restart", 180);
        var flushesBefore = source.Stream.Reader.Flushes;
        await using (var work = new SqlConnection(connectionString))
        {
            await work.OpenAsync();
            await work.ExecuteAsync("CREATE TABLE #t (v int); DECLARE @i int = 0; WHILE @i < 200 BEGIN INSERT #t VALUES (@i); SET @i += 1; END;");
            await work.ExecuteAsync("EXEC sys.sp_flush_log;");
        }

        await StreamRows.Eventually(() => source.Stream.Reader.Flushes > flushesBefore, "log flush events after the restart", 60);
        Assert.True(health.IsUp("real", "stream"));
        await cts.CancelAsync();
        await run.WaitAsync(TimeSpan.FromSeconds(30));
        await consume;
    }

    private static Task<long> FlushCounter(SqlConnection connection, string database) =>
        connection.ExecuteScalarAsync<long>(
            "SELECT cntr_value FROM sys.dm_os_performance_counters WHERE object_name LIKE N'%:Databases' AND counter_name = N'Log Flushes/sec' AND RTRIM(instance_name) = @database",
            new { database });

    private static WriteSizeDistribution Sizes(LogFlushAggregator aggregator, int databaseId)
    {
        var db = aggregator.Snapshot().SingleOrDefault(d => d.DatabaseId == databaseId);
        var copy = new WriteSizeDistribution();
        if (db is not null)
        {
            copy.AddFrom(db.WriteSizes);
        }

        return copy;
    }
}

using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// Azure's log-rate cap (the log_rate unit) through the real SqlClient against the scripted server, in each edition's
/// documented shape: Azure SQL Database (the database's cap, tier and newest log write percentage; on Hyperscale the
/// components under either column naming its page gives), Managed Instance (the instance's cap and sku), SQL Server
/// (nothing governed, nothing sent).
/// </summary>
public class LogRatePollerTests
{
    [Fact]
    public async Task Azure_SQL_Database_reads_the_live_cap_its_tier_and_the_share_written()
    {
        var aggregator = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer { EngineEdition = 5, Shape = ServerShape.AzureSqlDatabase };
        await using var h = new PollerHarness(server, o => o.Azure = true, next: aggregator);
        await h.PollAsync();

        var row = Assert.Single(h.Sink.Values<LogRateRow>());
        Assert.Equal((LogRateSignal.DatabaseScope, "sales", "GeneralPurpose", "SQLDB_GP_Gen5_2", 9_830_400L, 37.5), (row.Scope, row.DatabaseName, row.Tier, row.ServiceObjective, row.MaxLogRateBytesPerSecond, row.LogWritePercent));
        Assert.Single(server.RequestsFor("sys.dm_user_db_resource_governance"));
        Assert.Empty(server.RequestsFor("sys.dm_hs_database_log_rate")); // not Hyperscale: not asked
        var g = Assert.Single(aggregator.Snapshot(), d => d.Database == "sales").LogRate!;
        Assert.Equal(9_830_400 * 0.375, g.UsedBytesPerSecond!.Value, 6); // 37.5 % of the cap
        Assert.Equal(0.375, g.ShareOfCap!.Value, 9);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Hyperscale_names_the_component_holding_the_rate_back_under_either_column_naming(bool exampleNames)
    {
        var aggregator = new LogFlushAggregator();
        await using var server = new ScriptedSqlServer
        {
            EngineEdition = 5, Shape = ServerShape.AzureSqlDatabase, AzureTier = "Hyperscale", AzureServiceObjective = "SQLDB_HS_Gen5_4",
            AzureMaxLogRate = 104_857_600, HyperscaleExampleColumnNames = exampleNames,
        };
        server.HyperscaleComponents.Clear();
        server.HyperscaleComponents.Add(("Storage", 20_971_520, 15_728_640, 734_003_200)); // a page server behind: 20 MiB/s, 700 MiB to apply
        await using var h = new PollerHarness(server, o => o.Azure = true, next: aggregator);
        await h.PollAsync();

        var component = Assert.Single(h.Sink.Values<LogRateRow>(), r => r.Scope == LogRateSignal.HyperscaleScope);
        Assert.Equal(("Storage", 20_971_520L, 734_003_200L, 15_728_640L), (component.Component, component.MaxLogRateBytesPerSecond, component.CatchupBytes, component.CatchupRateBytesPerSecond));
        Assert.Equal("SELECT * FROM sys.dm_hs_database_log_rate(DB_ID())", server.RequestsFor("sys.dm_hs_database_log_rate")[0].Text.Trim());
        var g = Assert.Single(aggregator.Snapshot(), d => d.Database == "sales").LogRate!;
        Assert.Equal(("Storage", 20_971_520L), (g.LimitingComponent, g.LimitingBytesPerSecond!.Value));
    }

    [Fact]
    public async Task Managed_Instance_reads_the_instances_cap_and_sku()
    {
        await using var server = new ScriptedSqlServer { EngineEdition = 8, Shape = ServerShape.AzureManagedInstance };
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        var row = Assert.Single(h.Sink.Values<LogRateRow>());
        Assert.Equal((LogRateSignal.InstanceScope, (string?)null, "General Purpose", "General Purpose Gen5 8 vCores", 50_331_648L), (row.Scope, row.DatabaseName, row.Tier, row.ServiceObjective, row.MaxLogRateBytesPerSecond));
        Assert.Empty(server.RequestsFor("sys.dm_user_db_resource_governance"));
    }

    [Fact]
    public async Task SQL_Server_governs_no_log_rate_and_is_asked_only_its_edition_once()
    {
        await using var server = new ScriptedSqlServer();
        await using var h = new PollerHarness(server);
        await h.PollAsync();
        await h.PollAsync();

        Assert.Empty(h.Sink.Values<LogRateRow>());
        Assert.DoesNotContain(h.Sink.Of<PollEnded>(), p => p.Signal == SignalRegistry.LogRate);
        Assert.Empty(server.RequestsFor("resource_governance"));
        Assert.True(h.Health.IsUp("prod-1", "poller"));
    }
}

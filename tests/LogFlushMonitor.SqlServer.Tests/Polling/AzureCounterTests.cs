using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// Issue 19 item 3: on Azure SQL Database (engine edition 5) and Managed Instance (8) the counters name a database by its
/// physical name (a GUID); the poll maps it back before filtering.
/// </summary>
public class AzureCounterTests
{
    private static HashSet<string> Instances(PollerHarness h) => [.. h.Sink.Values<CounterRow>().Select(c => c.CounterInstance)];

    [Fact]
    public async Task On_SQL_Database_the_current_database_is_kept_under_its_name_even_with_an_include_list()
    {
        await using var server = new ScriptedSqlServer { Shape = ServerShape.AzureSqlDatabase, EngineEdition = 5, CurrentDatabase = "sales" };
        await using var h = new PollerHarness(server, o =>
        {
            o.Azure = true;
            o.IncludeDatabases = ["sales"];
        });
        await h.PollAsync();

        // Not the pool's neighbours (GUIDs without a row in sys.databases), not _Total, no internal or system instance.
        Assert.Equal(["sales"], Instances(h));
        Assert.Equal(DefaultCounterCount, h.Sink.Values<CounterRow>().Count());
        var flushes = h.Sink.Values<CounterRow>().Single(c => c.CounterName == "Log Flushes/sec");
        Assert.Equal(100, flushes.Value);
        // The lists travel to no statement (the server's instance names are GUIDs there): applied after mapping.
        Assert.Empty(server.RequestsFor("sys.dm_os_performance_counters").Single().Parameters);
        Assert.Contains(h.Logger.Lines, l => l.EventId == 514 && l.Message.Contains("2 performance-counter instances", StringComparison.Ordinal));
    }

    [Fact]
    public async Task On_Managed_Instance_user_databases_are_mapped_and_filtered_by_name_and_internal_ones_dropped()
    {
        await using var server = new ScriptedSqlServer { Shape = ServerShape.AzureManagedInstance, EngineEdition = 8 };
        server.AddDatabase("orders");
        await using var h = new PollerHarness(server, o => o.ExcludeDatabases = ["orders"]);
        await h.PollAsync();

        Assert.Equal(["_Total", "master", "model", "msdb", "sales", "tempdb"], Instances(h).Order());
        Assert.DoesNotContain(h.Logger.Lines, l => l.EventId == 514);
    }

    [Fact]
    public async Task A_physical_name_with_a_suffix_maps_to_its_database_and_the_exact_name_wins()
    {
        await using var server = new ScriptedSqlServer { Shape = ServerShape.AzureManagedInstance, EngineEdition = 8 };
        var sales = server.Database("sales");
        server.ExtraCounters.Add(("MSSQL$E8B2D8D7C6A1:Databases", "Log Flushes/sec", sales.PhysicalName + ".3", 777_777, PerfCounterType.BulkCount));
        await using var h = new PollerHarness(server);
        await h.PollAsync();

        Assert.Equal(100, h.Sink.Values<CounterRow>().Single(c => c.CounterInstance == "sales" && c.CounterName == "Log Flushes/sec").Value);
    }

    [Theory]
    [InlineData("_Total", "_Total", true)]
    [InlineData("tempdb", "tempdb", true)]
    [InlineData("00000005-5EED-4A11-9B3C-1D2E3F405162", "sales", true)]
    [InlineData("00000005-5eed-4a11-9b3c-1d2e3f405162.7", "sales", false)]
    [InlineData("0F1E2D3C-4B5A-4968-8776-A5B4C3D2E1F0", null, false)]
    public void Physical_names_map_on_their_first_36_characters(string raw, string? name, bool exact)
    {
        var map = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase) { ["00000005-5EED-4A11-9B3C-1D2E3F405162"] = "sales" };
        Assert.Equal((name, exact), CountersSignal.MapPhysical(raw, map));
    }

    private const int DefaultCounterCount = 8;
}

using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Polling;

/// <summary>
/// Issue 30 item 5: what the monitor's event session costs the server, polled through the real SqlClient: the session's
/// buffers (sys.dm_xe_sessions, every version) and each event's publishing cost (sys.dm_xe_session_events, SQL Server
/// 2022 and later), the session's and its histogram sessions', never check's temporary one.
/// </summary>
public class XeSessionCostPollerTests
{
    [Fact]
    public async Task The_sessions_buffers_and_each_events_cost_are_read_for_the_instances_sessions()
    {
        await using var server = new ScriptedSqlServer { TraceFlag9708 = true };
        server.Server.Options.ProgramVersion = new Version(16, 0, 4135); // SQL Server 2022: the per-event figures exist
        server.SetSessionDrops("lfm", 0, 0); // running: the stream's session
        server.SetSessionDrops("lfm_h5", 0, 0); // a histogram session of the same instance
        server.SetSessionDrops("lfm_check", 0, 0); // check's temporary session: not the instance's
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, o => o.SessionName = "lfm", next: aggregator);
        await h.PollAsync();
        await h.PollAsync();

        var rows = h.Sink.Values<XeSessionCostRow>();
        Assert.Equal(["lfm", "lfm_h5"], rows.Where(r => r.EventName is null).Select(r => r.Session).Distinct().Order());
        Assert.DoesNotContain(rows, r => r.Session == "lfm_check");
        Assert.Contains(rows, r => r is { Session: "lfm", EventName: "log_flush_start", AverageUs: 3, MinUs: 1, MaxUs: 40 });
        Assert.Equal("lfm", server.RequestsFor("sys.dm_xe_session_events")[0].Parameter("name"));

        // Two polls: the scripted server added 100 fires of 3 µs per event per answer; the first poll is the baseline.
        // log_flush_start fires in both sessions: 100 more in each = 200 fires, 600 µs.
        var fires = aggregator.ReadLong("sqlserver.monitor.session.event.fires").Single(m => Tag(m.Tags, "event.name") == "log_flush_start");
        Assert.Equal(200, fires.Value);
        var time = aggregator.ReadDouble("sqlserver.monitor.session.event.fire.time").Single(m => Tag(m.Tags, "event.name") == "log_flush_start");
        Assert.Equal(600e-6, time.Value, 9);
        Assert.Equal(40e-6, aggregator.ReadDouble("sqlserver.monitor.session.event.fire.max").Single(m => Tag(m.Tags, "event.name") == "log_flush_start").Value, 9);
        Assert.Equal(2 * 4_194_304, Assert.Single(aggregator.ReadLong("sqlserver.monitor.session.memory")).Value);
        Assert.Equal(0, Assert.Single(aggregator.ReadLong("sqlserver.monitor.session.buffers.pending")).Value);
    }

    [Fact]
    public async Task Without_trace_flag_9708_the_count_and_average_are_absent_not_zero()
    {
        await using var server = new ScriptedSqlServer();
        server.Server.Options.ProgramVersion = new Version(16, 0, 4135);
        server.SetSessionDrops("lfm", 0, 0);
        var aggregator = new LogFlushAggregator();
        await using var h = new PollerHarness(server, o => o.SessionName = "lfm", next: aggregator);
        await h.PollAsync();
        await h.PollAsync();

        Assert.Empty(aggregator.ReadLong("sqlserver.monitor.session.event.fires"));
        Assert.Empty(aggregator.ReadDouble("sqlserver.monitor.session.event.fire.time"));
        Assert.Equal(3, aggregator.ReadDouble("sqlserver.monitor.session.event.fire.max").Count); // kept without the flag
        var text = XeSessionCostSignal.Describe(h.Sink.Values<XeSessionCostRow>().TakeLast(4).ToList(), new ServerProfile(false, 16));
        Assert.Contains("log_flush_start: min 1 µs, max 40 µs", text, StringComparison.Ordinal);
        Assert.Contains("trace flag 9708", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Before_SQL_Server_2022_only_the_buffers_are_read()
    {
        await using var server = new ScriptedSqlServer { ProductVersion = "15.0.4375.4" }; // SqlClient sees 15.00.2000 by default
        server.SetSessionDrops("lfm", 0, 0);
        await using var h = new PollerHarness(server, o => o.SessionName = "lfm");
        await h.PollAsync();

        Assert.Empty(server.RequestsFor("sys.dm_xe_session_events"));
        Assert.Single(h.Sink.Values<XeSessionCostRow>(), r => r.EventName is null);
        Assert.Contains("kept from SQL Server 2022 (this server is version 15)", XeSessionCostSignal.Describe([], new ServerProfile(false, 15)), StringComparison.Ordinal);
    }

    private static string? Tag(ReadOnlySpan<KeyValuePair<string, object?>> tags, string key)
    {
        foreach (var t in tags)
        {
            if (t.Key == key)
            {
                return t.Value as string;
            }
        }

        return null;
    }
}

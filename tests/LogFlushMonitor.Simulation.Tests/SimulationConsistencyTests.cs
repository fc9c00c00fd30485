using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Simulation.Tests;

public class SimulationConsistencyTests
{
    private static readonly DateTime T0 = ScenarioShapeTests.T0;

    private static readonly HashSet<string> System = ["master", "model", "msdb"];

    private static RecordingSink Record(string scenario, TimeSpan duration, SimulationOptions? options = null)
    {
        var sink = new RecordingSink();
        SimulationScenarios.Create(scenario, options).Run(T0, duration, sink);
        return sink;
    }

    /// <summary>
    /// Walks the stream in delivery order, keeping what the server must have counted from the events delivered
    /// so far, and checks every counter, file-stats and wait-stats row against it.
    /// </summary>
    [Theory]
    [InlineData("autocommit")]
    [InlineData("big-transaction")]
    [InlineData("delayed-durability")]
    [InlineData("writelog-spike")]
    [InlineData("restart")]
    [InlineData("drop-database")]
    public void Every_polled_value_agrees_with_the_events_delivered_before_it(string scenario)
    {
        var recording = Record(scenario, TimeSpan.FromSeconds(45), LightWorkload.Options);
        var perDb = new Dictionary<string, (long Flushes, long Bytes, long Waits, long WaitTicks, long StallTicks)>();
        var polledNow = new HashSet<string>();
        long writelogTasks = 0, writelogTicks = 0, lastSequence = 0;
        int restarts = 0, startTimeChanges = -1;
        DateTime? startTime = null;
        var checkedRows = 0;
        var systemFlushes = new Dictionary<string, long>();

        void Sequence(long sequence)
        {
            if (sequence < lastSequence)
            {
                // The event_sequence restarted with the instance: the server counts from zero again.
                restarts++;
                perDb.Clear();
                writelogTasks = writelogTicks = 0;
            }

            lastSequence = sequence;
        }

        foreach (var sample in recording.All)
        {
            switch (sample)
            {
                case Polled<ServerStartRow> s:
                    polledNow.Clear();
                    if (startTime != s.Row.StartTimeUtc)
                    {
                        startTimeChanges++;
                        startTime = s.Row.StartTimeUtc;
                    }

                    break;
                case LogFlushEvent f:
                    Sequence(f.Sequence);
                    var d = perDb.GetValueOrDefault(f.DatabaseName!);
                    perDb[f.DatabaseName!] = f.IsComplete
                        ? d with { StallTicks = d.StallTicks + f.Duration!.Value.Ticks }
                        : d with { Flushes = d.Flushes + 1, Bytes = d.Bytes + f.WriteSize };
                    break;
                case WaitEvent w:
                    Sequence(w.Sequence);
                    var wd = perDb.GetValueOrDefault(w.DatabaseName!);
                    perDb[w.DatabaseName!] = wd with { Waits = wd.Waits + 1, WaitTicks = wd.WaitTicks + w.Duration.Ticks };
                    writelogTasks++;
                    writelogTicks += w.Duration.Ticks;
                    break;
                case Polled<CounterRow> { Row: var c } sys when System.Contains(c.CounterInstance):
                    // master, model and msdb: counters only (no event session reports them), at a real capture's rates
                    // per 100 s of the instance's uptime (perfCounterQueryData.txt: 169, 74 and 79 flushes).
                    var up = (long)(sys.TimestampUtc - startTime!.Value).TotalSeconds;
                    if (c.CounterName == "Log Flushes/sec")
                    {
                        Assert.Equal((c.CounterInstance switch { "master" => 169L, "model" => 74L, _ => 79L }) * up / 100, c.Value);
                        systemFlushes[c.CounterInstance] = c.Value;
                        checkedRows++;
                    }

                    break;
                case Polled<CounterRow> { Row: var c } when c.CounterInstance != "_Total":
                    polledNow.Add(c.CounterInstance);
                    var cd = perDb.GetValueOrDefault(c.CounterInstance);
                    long? expected = c.CounterName switch
                    {
                        "Log Flushes/sec" => cd.Flushes,
                        "Log Bytes Flushed/sec" => cd.Bytes,
                        "Log Flush Waits/sec" => cd.Waits,
                        "Log Flush Wait Time" => cd.WaitTicks / TimeSpan.TicksPerMillisecond,
                        _ => null,
                    };
                    if (expected is { } e)
                    {
                        Assert.Equal(e, c.Value);
                        checkedRows++;
                    }

                    break;
                case Polled<CounterRow> { Row: var total } when total.CounterName == "Log Flushes/sec":
                    // _Total sums the databases that exist now (a dropped one no longer counts), the system ones included.
                    Assert.Equal(polledNow.Sum(n => perDb.GetValueOrDefault(n).Flushes) + systemFlushes.Values.Sum(), total.Value);
                    break;
                case Polled<FileStatsRow> { Row: var fs }:
                    var fd = perDb.GetValueOrDefault(fs.DatabaseName);
                    Assert.Equal(fd.Flushes, fs.NumWrites);
                    Assert.Equal(fd.Bytes, fs.BytesWritten);
                    Assert.Equal(fd.StallTicks / TimeSpan.TicksPerMillisecond, fs.IoStallWriteMs);
                    checkedRows++;
                    break;
                case Polled<WaitStatsRow> { Row: var ws } when ws.WaitType == "WRITELOG":
                    Assert.Equal(writelogTasks, ws.WaitingTasks);
                    Assert.Equal(writelogTicks / TimeSpan.TicksPerMillisecond, ws.WaitTimeMs);
                    break;
            }
        }

        Assert.Equal(scenario == "restart" ? 1 : 0, restarts);
        Assert.Equal(restarts, startTimeChanges);
        Assert.True(checkedRows >= 40, $"only {checkedRows} rows checked");
        Assert.Contains(recording.Counters, c => c.Row.CounterName == "Log Flushes/sec" && c.Row.Value > 100); // the counters really moved
    }

    [Fact]
    public void Every_poll_delivers_start_time_counters_wait_stats_and_file_stats_then_completes_each_kind()
    {
        var recording = Record("autocommit", TimeSpan.FromSeconds(10));
        var polls = recording.All.OfType<PollEnded>().ToList();
        Assert.Equal(3 * 8, polls.Count); // at 0, 5 and 10 s: counters, wait stats, file stats, the session's cost, WRITELOG waiters, log writers, log files, log space
        Assert.Equal(3, polls.Count(p => p.Signal == SignalRegistry.WriteLogWaiters));
        Assert.Equal([T0, T0.AddSeconds(5), T0.AddSeconds(10)], polls.Select(p => p.TimestampUtc).Distinct());
        var names = recording.Counters.Where(c => c.TimestampUtc == T0.AddSeconds(5)).Select(c => (c.Row.CounterInstance, c.Row.CounterName, c.Row.CounterType)).ToList();
        foreach (var db in new[] { "shop", "_Total" })
        {
            Assert.Contains((db, "Log Flushes/sec", PerfCounterType.BulkCount), names);
            Assert.Contains((db, "Log Bytes Flushed/sec", PerfCounterType.BulkCount), names);
            Assert.Contains((db, "Log Flush Waits/sec", PerfCounterType.BulkCount), names);
            Assert.Contains((db, "Log Flush Wait Time", PerfCounterType.BulkCount), names);
            Assert.Contains((db, "Percent Log Used", PerfCounterType.LargeRawCount), names);
            Assert.Contains((db, "Log File(s) Used Size (KB)", PerfCounterType.LargeRawCount), names);
            Assert.Contains((db, "Log File(s) Size (KB)", PerfCounterType.LargeRawCount), names);
            Assert.Contains((db, "Log Cache Hit Ratio", PerfCounterType.LargeRawFraction), names);
        }

        var hitRatio = recording.Counters.Select(c => c.Row).Last(c => c.CounterName == "Log Cache Hit Ratio" && c.CounterInstance == "shop");
        Assert.InRange((double)hitRatio.Value / hitRatio.BaseValue, 0.9, 1.0);
        Assert.Equal(["WRITELOG", "LOGBUFFER", "HADR_SYNC_COMMIT"], recording.Rows<WaitStatsRow>().Select(w => w.Row.WaitType).Distinct()); // HADR_SYNC_COMMIT at zero without a replica, as a server lists it
        // Events of a database are numbered contiguously per instance, and log blocks grow.
        var seqs = recording.All.OfType<LogFlushEvent>().Select(f => f.Sequence).Concat(recording.Waits.Select(w => w.Sequence)).Order().ToList();
        Assert.Equal(Enumerable.Range(1, seqs.Count).Select(i => (long)i), seqs);
        var blocks = recording.FlushStarts.Select(f => f.LogBlockId).ToList();
        Assert.Equal(blocks.Order(), blocks);
        Assert.Equal(blocks.Count, blocks.Distinct().Count());
    }

    [Fact]
    public void The_mixed_scenario_flushes_master_model_and_msdb_and_the_agreement_holds()
    {
        // Issue 30 item 1: as on a real server, the system databases flush (counters only: the session never reports them),
        // so `run --simulate mixed` holds the agreement against them. Counting them on the counter side was 0.08 to 0.93.
        var reports = new List<AgreementReport>();
        var aggregator = new LogFlushAggregator(agreement: reports.Add);
        SimulationScenarios.Create("mixed").Run(T0, TimeSpan.FromMinutes(3), aggregator);

        var flushes = aggregator.ReadLong("sqlserver.log.flushes");
        foreach (var system in System)
        {
            Assert.Contains(flushes, m => m.Tags.ToArray().Any(t => t.Key == "sqlserver.database.name" && (string?)t.Value == system) && m.Value > 0);
        }

        var ratios = aggregator.ReadDouble("sqlserver.monitor.agreement").Where(m => m.Tags.ToArray().Any(t => t.Key == "quantity" && (string?)t.Value == "flushes")).ToList();
        Assert.NotEmpty(ratios);
        Assert.All(ratios, m => Assert.InRange(m.Value, 0.9, 1.1));
        Assert.DoesNotContain(reports, r => r.Quantity is AgreementQuantity.Flushes or AgreementQuantity.FlushedBytes);
    }

    [Fact]
    public void Simulated_event_loss_leaves_sequence_gaps_that_are_reported_while_counters_count_everything()
    {
        var recording = Record("autocommit", TimeSpan.FromSeconds(10), new SimulationOptions { EventLossRate = 0.01 });
        var aggregator = new LogFlushAggregator();
        SimulationScenarios.Create("autocommit", new SimulationOptions { EventLossRate = 0.01 }).Run(T0, TimeSpan.FromSeconds(10), aggregator);

        var delivered = recording.All.OfType<LogFlushEvent>().Count() + recording.Waits.Count();
        var lost = recording.All.OfType<RecordedLoss>().Where(l => l.Kind == LossKind.SequenceGap).Sum(l => l.Count);
        var generated = recording.All.OfType<LogFlushEvent>().Select(f => f.Sequence).Concat(recording.Waits.Select(w => w.Sequence)).Max();
        Assert.Equal(generated, delivered + lost);
        Assert.InRange((double)lost / generated, 0.005, 0.015);

        var counted = recording.Counters.Select(c => c.Row).Last(c => c.CounterInstance == "shop" && c.CounterName == "Log Flushes/sec").Value;
        Assert.True(counted > recording.FlushStarts.Count(), "the server counts flushes the consumer never saw");
        Assert.Equal(lost, Assert.Single(aggregator.SnapshotInstances()).LostSequenceGap);
    }

    [Fact]
    public void The_same_seed_gives_the_same_samples_and_another_seed_does_not()
    {
        var a = Record("mixed", TimeSpan.FromSeconds(3), new SimulationOptions { Seed = 7 });
        var b = Record("mixed", TimeSpan.FromSeconds(3), new SimulationOptions { Seed = 7 });
        var c = Record("mixed", TimeSpan.FromSeconds(3), new SimulationOptions { Seed = 8 });
        Assert.Equal(a.All, b.All);
        Assert.NotEqual(a.All, c.All);
    }

    [Fact]
    public void Advancing_in_small_pieces_gives_the_same_flushes_as_one_run()
    {
        var whole = Record("drop-database", TimeSpan.FromSeconds(40), LightWorkload.Options);
        var pieces = new RecordingSink();
        var sim = SimulationScenarios.Create("drop-database", LightWorkload.Options);
        sim.Start(T0);
        for (var ms = 0; ms <= 40_000; ms += 1_234)
        {
            sim.Advance(T0.AddMilliseconds(ms), pieces);
        }

        sim.Advance(T0.AddSeconds(40), pieces);
        Assert.Equal(T0.AddSeconds(40), sim.NowUtc);
        static IEnumerable<(string?, DateTime, uint)> Key(RecordingSink s) => s.FlushStarts.Select(f => (f.DatabaseName, f.TimestampUtc, f.WriteSize)).Order();
        Assert.Equal(Key(whole), Key(pieces));
        Assert.Equal(whole.Counters, pieces.Counters);
    }

    [Fact]
    public void Unknown_scenario_names_the_valid_ones()
    {
        var e = Assert.Throws<ArgumentException>(() => SimulationScenarios.Create("nope"));
        Assert.Contains("nope", e.Message);
        Assert.All(SimulationScenarios.Names, n => Assert.Contains(n, e.Message));
    }

    [Fact]
    public void Invalid_options_are_refused_with_the_setting_named()
    {
        var e = Assert.Throws<ArgumentException>(() => SimulationScenarios.Create("autocommit", new SimulationOptions { EventLossRate = 1 }));
        Assert.Contains("EventLossRate", e.Message);
        e = Assert.Throws<ArgumentException>(() => SimulationScenarios.Create("autocommit", new SimulationOptions { Step = TimeSpan.FromSeconds(10) }));
        Assert.Contains("Step", e.Message);
    }

    [Fact]
    public void Every_named_scenario_runs_and_produces_flushes_and_polls()
    {
        Assert.Contains(SimulationScenarios.Default, SimulationScenarios.Names);
        foreach (var name in SimulationScenarios.Names)
        {
            var recording = Record(name, TimeSpan.FromSeconds(2));
            Assert.True(recording.FlushStarts.Any(), name);
            Assert.Contains(recording.All, s => s is PollEnded);
        }
    }

    /// <summary>
    /// Events allocate nothing; a poll allocates its batches (the rows of each signal, a few KB per instance every poll
    /// interval: 47 counters per database among them), which are handed on and may be kept by a sink. So the bound is per
    /// event, over enough events that one poll's batches cannot hide a per-event allocation (150,000 events: one byte
    /// each would be 150 KB).
    /// </summary>
    [Fact]
    public void Advancing_allocates_nothing_per_event()
    {
        var sink = new RecordingSink { Keep = false };
        var sim = SimulationScenarios.Create("writelog-spike");
        sim.Start(T0);
        sim.Advance(T0.AddSeconds(1), sink);
        var before = GC.GetAllocatedBytesForCurrentThread();
        var eventsBefore = sink.Events;
        sim.Advance(T0.AddSeconds(6), sink);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        var events = sink.Events - eventsBefore;
        Assert.True(events > 100_000, $"{events} events");
        Assert.True(allocated < 32 * 1024, $"{allocated} bytes for {events} events");
    }
}

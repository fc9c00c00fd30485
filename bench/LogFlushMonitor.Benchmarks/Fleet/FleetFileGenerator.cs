using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Benchmarks.Fleet;

/// <summary>
/// Writes the NDJSON recording of a fleet (<c>make-fleet</c>): every instance and database with every metric a
/// replay can carry populated, so <c>logflushmonitor run --replay fleet.ndjson --speed 0</c> serves a scrape of
/// the size a real fleet of that shape would.
/// </summary>
/// <remarks>
/// Per instance: a server start, two polls 15 s apart (the second one is what makes the cumulative counters
/// and file stats export an increase) and between them, per database, log flushes of every write-size bucket,
/// their completions with durations in every duration bucket, and WRITELOG waits in every bucket. Counters per
/// database and for <c>_Total</c>: every counter of a real Databases object (47, <see cref="DatabasesCounterSet"/>), as
/// a server answers; a replay keeps those Sources:SqlServer:Counters selects (by default the seven log counters;
/// <c>--Sources:SqlServer:Counters:0=*</c> keeps them all and fills every <c>sqlserver.performance.*</c> metric). Each instance reports one sequence gap of two events, so the loss counters are not empty. The
/// health metrics of live SQL Server sources (<c>sqlserver.monitor.up</c>, errors, mode, fallbacks) have no
/// NDJSON form and stay empty in a replay. Deterministic: the same arguments give the same bytes.
/// </remarks>
public static class FleetFileGenerator
{
    /// <summary>Log flushes per database between the two polls (each also has a completion line).</summary>
    public const int FlushesPerDatabase = 20;

    /// <summary>WRITELOG waits per database between the two polls.</summary>
    public const int WaitsPerDatabase = 11;

    private const string Total = "_Total";
    private const int FirstDatabaseId = 5;
    private const int LostPerInstance = 2;

    /// <summary>
    /// The most user databases one instance can have with ids from <see cref="FirstDatabaseId"/>: SQL Server holds at
    /// most 32,767 databases per instance (Microsoft, "Maximum capacity specifications for SQL Server"), and the
    /// service rejects a database id above that. A larger estate is several instances.
    /// </summary>
    public const int MaxDatabasesPerInstance = short.MaxValue - FirstDatabaseId + 1;

    private static readonly DateTime Start = new(2026, 11, 22, 12, 0, 0, DateTimeKind.Utc);
    private static readonly TimeSpan PollInterval = TimeSpan.FromSeconds(15);

    // One write size per write-size bucket (512 ... 61440 and above) and one duration per duration bucket.
    private static readonly uint[] WriteSizes = [512, 1024, 1536, 4096, 6144, 12288, 24576, 40960, 57344, 61440, 65536];
    private static readonly double[] DurationsMs = [0.05, 0.2, 0.4, 0.8, 2, 4, 8, 20, 80, 800, 2000];

    /// <summary>Writes the fleet to <paramref name="path"/> and returns the number of lines.</summary>
    public static long Write(string path, int instances, int databases)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(instances);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(databases);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(databases, MaxDatabasesPerInstance);
        using var writer = new NdjsonSampleWriter(path);
        Deliver(writer, instances, databases);
        writer.Flush();
        return writer.Lines;
    }

    /// <summary>Hands the fleet's samples, in the file's order, to <paramref name="writer"/> (a recording, or an aggregation directly).</summary>
    public static void Deliver(ISampleSink writer, int instances, int databases)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(instances);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(databases);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(databases, MaxDatabasesPerInstance);
        for (var i = 0; i < instances; i++)
        {
            WriteInstance(writer, $"sql{i:00}", databases);
        }
    }

    private static void WriteInstance(ISampleSink writer, string instance, int databases)
    {
        var names = Enumerable.Range(0, databases).Select(d => $"database_{d:000}").ToArray();
        var second = Start + PollInterval;
        writer.OnBatch(SignalRegistry.ServerStart.Batch(instance, Start, [new ServerStartRow(Start.AddDays(-3))], endsPoll: false));
        Poll(writer, instance, names, Start, round: 0);

        long sequence = 0;
        long writeLogTasks = 0;
        var writeLogMs = 0.0;
        for (var d = 0; d < names.Length; d++)
        {
            var id = FirstDatabaseId + d;
            for (var k = 0; k < FlushesPerDatabase; k++)
            {
                var t = Start + TimeSpan.FromMilliseconds((k + 1) * 500 + d);
                var block = (ulong)(d * 1000 + k);
                var size = WriteSizes[(k + d) % WriteSizes.Length];
                if (sequence == 10)
                {
                    // Two events lost on the way (a gap in event_sequence), reported as a real source would.
                    sequence += LostPerInstance;
                    writer.OnSourceLoss(instance, LossKind.SequenceGap, LostPerInstance);
                }

                writer.OnLogFlush(new LogFlushEvent(instance, id, names[d], size, block, t, null, ++sequence));
                var duration = TimeSpan.FromMilliseconds(DurationsMs[(k + d) % DurationsMs.Length]);
                writer.OnLogFlush(new LogFlushEvent(instance, id, names[d], 0, block, t + duration, duration, ++sequence));
            }

            for (var k = 0; k < WaitsPerDatabase; k++)
            {
                var wait = TimeSpan.FromMilliseconds(DurationsMs[k % DurationsMs.Length]);
                writeLogTasks++;
                writeLogMs += wait.TotalMilliseconds;
                writer.OnWait(new WaitEvent(instance, "WRITELOG", wait, id, names[d], Start + TimeSpan.FromMilliseconds((k + 1) * 700 + d), ++sequence));
            }
        }

        Poll(writer, instance, names, second, round: 1, writeLogTasks, (long)writeLogMs);
    }

    /// <summary>One poll of every kind; round 1 reads the values round 0 read plus what happened in between.</summary>
    private static void Poll(ISampleSink writer, string instance, string[] names, DateTime t, int round, long writeLogTasks = 0, long writeLogMs = 0)
    {
        var counters = new List<CounterRow>();
        long totalFlushes = 0, totalBytes = 0;
        for (var d = 0; d < names.Length; d++)
        {
            // Cumulative values since the instance started: a base, plus this interval's flushes in round 1.
            var flushes = 100_000L * (d + 1) + (round * FlushesPerDatabase);
            var bytes = flushes * 4096;
            totalFlushes += flushes;
            totalBytes += bytes;
            Counters(counters, names[d], flushes, bytes, d);
        }

        Counters(counters, Total, totalFlushes, totalBytes, names.Length);
        writer.OnBatch(SignalRegistry.Counters.Batch(instance, t, [.. counters], endsPoll: true));

        writer.OnBatch(SignalRegistry.WaitStats.Batch(instance, t,
        [
            new WaitStatsRow("WRITELOG", 5_000_000 + writeLogTasks, 9_000_000 + writeLogMs, 900, 1_000_000 + (writeLogMs / 10)),
            new WaitStatsRow("LOGBUFFER", 40_000 + (round * 7), 120_000 + (round * 50), 300, 2_000 + round),
        ], endsPoll: true));

        var files = new FileStatsRow[names.Length];
        for (var d = 0; d < names.Length; d++)
        {
            var writes = 100_000L * (d + 1) + (round * FlushesPerDatabase);
            files[d] = new FileStatsRow(FirstDatabaseId + d, names[d], 2, writes, writes * 4096, writes / 2);
        }

        writer.OnBatch(SignalRegistry.FileStats.Batch(instance, t, files, endsPoll: true));
    }

    /// <summary>
    /// Every counter a real Databases object reports for the instance (<see cref="DatabasesCounterSet"/>), as a server
    /// answers a poll; the monitor keeps the ones Sources:SqlServer:Counters selects.
    /// </summary>
    private static void Counters(List<CounterRow> into, string db, long flushes, long bytes, int d)
    {
        var waits = flushes / 4;
        DatabasesCounterSet.Read(into, db, new DatabasesCounterSet.LogCounters(
            flushes, bytes, waits, waits * 3, LogUsedKb: 1024L * (d + 1), LogSizeKb: 8192L * (d + 1), CacheHits: flushes * 9, CacheLookups: flushes * 10));
    }
}

using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Analysis;

/// <summary>What analyze's flush pairing found over the whole input.</summary>
/// <param name="Paired">Completes whose latency is the time since their start.</param>
/// <param name="Unpaired">Completes without a start: their duration field was read in <paramref name="FallbackUnit"/>.</param>
/// <param name="UnmatchedStarts">Starts whose complete never came (lost events, or flushes still in flight when the file ended).</param>
/// <param name="FallbackUnit">The unit of the duration field of unpaired completes.</param>
/// <param name="Decision">How the pairs settled that unit, when they did.</param>
/// <param name="NamedUnit">The unit the file's own description of the field names, if any.</param>
internal sealed record FlushPairingSummary(long Paired, long Unpaired, long UnmatchedStarts, DurationUnit FallbackUnit, DurationUnitDecision? Decision, DurationUnit? NamedUnit)
{
    /// <summary>
    /// Per database_id, the flushes still in flight when the input ended: starts no complete came for, after which their
    /// database completed nothing else (a log device that completes no write), with the oldest start's ticks.
    /// </summary>
    public IReadOnlyDictionary<int, (int Count, long OldestStartTicks)> OutstandingAtEnd { get; init; } = new Dictionary<int, (int, long)>();

    /// <summary>The last event's time in the input (ticks): what the outstanding flushes' age is measured against.</summary>
    public long EndTicks { get; init; }

    /// <summary>How the unit was chosen, for a person.</summary>
    public string UnitReason => Decision is { } d ? d.ToString()
        : NamedUnit is { } n ? $"log_flush_complete.duration read in {DurationUnits.Name(n)}, as the file's field description says"
        : $"log_flush_complete.duration read in {DurationUnits.Name(FallbackUnit)} (the default: the description names no unit and too few pairs settle it)";
}

/// <summary>
/// The end of analyze's flush pairing: the completes each worker could not pair are paired with the starts the other
/// workers still hold or let go of (the same table rule as the service, applied across workers), the duration field's
/// unit is settled over every worker's pairs, and the completes without any start are counted in that unit.
/// </summary>
internal static class FlushPairing
{
    /// <summary>Outstanding starts a worker's table holds.</summary>
    public const int TableCapacity = 1 << 14;

    /// <summary>Starts a worker's table may let go of and keep for the end (more are counted as unmatched).</summary>
    public const int SpillCapacity = 1 << 16;

    /// <summary>Completes without a start a worker keeps for the end (more are counted by their duration field at once).</summary>
    public const int PendingCapacity = 1 << 16;

    /// <summary>Pairs what the workers left, settles the unit, and adds the unpaired completes to <paramref name="tally"/>.</summary>
    public static FlushPairingSummary Finish(IReadOnlyList<XelTallyMapper> mappers, LogFlushTally tally)
    {
        var starts = new Dictionary<(int, ulong), long>();
        var remaining = new HashSet<(int, ulong)>();
        var evidence = new DurationUnitEvidence();
        long paired = 0, unpaired = 0, unmatched = 0;
        DurationUnit? named = null;
        foreach (var m in mappers)
        {
            var table = m.Latency.Pairs;
            foreach (var s in table.Remaining())
            {
                starts[(s.DatabaseId, s.LogBlockId)] = s.StartTicks;
                remaining.Add((s.DatabaseId, s.LogBlockId));
            }

            foreach (var s in table.Spilled)
            {
                starts[(s.DatabaseId, s.LogBlockId)] = s.StartTicks;
            }

            unmatched += table.Retired + table.Evicted + table.Replaced;
            evidence.AddFrom(m.Latency.Evidence);
            paired += m.Latency.Paired;
            unpaired += m.Latency.Unpaired;
            named ??= m.Latency.NamedUnit;
        }

        var instance = tally.Instance(AnalyzeRunner.InstanceName);
        foreach (var m in mappers)
        {
            foreach (var c in m.PendingCompletes)
            {
                var db = instance.Database(c.DatabaseId);
                if (starts.Remove((c.DatabaseId, c.LogBlockId), out var start) && c.Ticks >= start)
                {
                    db.FlushDurations.AddTicks(c.Ticks - start);
                    evidence.Add(c.Ticks - start, c.Duration);
                    paired++;
                    unpaired--;
                }
                else
                {
                    db.AddUnpairedDuration(c.Duration);
                }
            }
        }

        unmatched += starts.Count;
        var fallback = named ?? new XEventUnits().FlushComplete;
        var decision = evidence.Decide(fallback);
        var unit = decision?.Unit ?? fallback;
        foreach (var db in instance.Databases)
        {
            db.ApplyUnpaired(unit);
        }

        return new FlushPairingSummary(paired, unpaired, unmatched, unit, decision, named)
        {
            OutstandingAtEnd = InFlightAtEnd(starts, remaining, instance),
            EndTicks = instance.Databases.Select(d => d.LastTicks).DefaultIfEmpty(0).Max(),
        };
    }

    /// <summary>
    /// The starts no table let go of and no complete paired, of databases that completed no flush more than the grace
    /// period after them: what a stalled log device leaves at the end of a file. A start followed by later completes of
    /// its database lost its own complete (the service's table retires it the same way).
    /// </summary>
    private static Dictionary<int, (int Count, long OldestStartTicks)> InFlightAtEnd(Dictionary<(int, ulong), long> starts, HashSet<(int, ulong)> remaining, InstanceTally instance)
    {
        var graceTicks = FlushPairTable.DefaultGrace.Ticks;
        var result = new Dictionary<int, (int Count, long OldestStartTicks)>();
        foreach (var ((db, block), ticks) in starts)
        {
            if (!remaining.Contains((db, block)) || instance.Database(db).LastCompleteTicks > ticks + graceTicks)
            {
                continue;
            }

            result[db] = result.TryGetValue(db, out var o) ? (o.Count + 1, Math.Min(o.OldestStartTicks, ticks)) : (1, ticks);
        }

        return result;
    }
}

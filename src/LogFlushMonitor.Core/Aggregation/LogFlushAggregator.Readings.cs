using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>What the observable families read at collection time (<see cref="IMetricReadings"/>).</summary>
public sealed partial class LogFlushAggregator
{
    /// <summary>The families whose state the aggregation keeps, in catalog order.</summary>
    private static readonly MetricDefinition[] ReadFamilies =
        [.. MetricCatalog.All.Where(f => f.Source is CounterSource or OtherCountersSource or WaitStatsSource or FileStatsSource or ReplicaSource or AggregationSource)];

    private static readonly MetricDefinition WriteSizes = MetricCatalog.All.Single(f => f.Source is EventSource { Measure: EventMeasure.FlushWriteSize });
    private static readonly MetricDefinition FlushDurations = MetricCatalog.All.Single(f => f.Source is EventSource { Measure: EventMeasure.FlushDuration });
    private static readonly MetricDefinition WaitDurations = MetricCatalog.All.Single(f => f.Source is EventSource { Measure: EventMeasure.WaitDuration });

    /// <summary>Reads of the aggregation for collects since it was created (tests: one per collect).</summary>
    internal long Reads { get; private set; }

    /// <inheritdoc />
    public void Read(MeasurementBuffers into)
    {
        ArgumentNullException.ThrowIfNull(into);
        lock (_gate)
        {
            Reads++;
            foreach (var inst in _instances.Values)
            {
                foreach (var family in ReadFamilies)
                {
                    ReadFamily(inst, family, into);
                }

                CountEventSeries(inst, into);
            }
        }
    }

    /// <summary>Under the lock: one instance's measurements of one family, from the group its series were created in.</summary>
    private void ReadFamily(InstanceState inst, MetricDefinition family, MeasurementBuffers into)
    {
        switch (family.Source)
        {
            case CounterSource or OtherCountersSource:
                if (inst.CounterGroup(family) is not { } group)
                {
                    return;
                }

                foreach (var s in group)
                {
                    if (s.HasValue)
                    {
                        Add(into, family, s.LongValue, s.Value, s.Tags);
                    }
                }

                return;
            case WaitStatsSource waits:
                foreach (var s in inst.WaitStats.Values)
                {
                    var total = waits.Column switch
                    {
                        WaitStatsColumn.WaitingTasksCount => s.Tasks.Total,
                        WaitStatsColumn.WaitTimeMs => s.WaitTimeMs.Total,
                        _ => s.SignalTimeMs.Total,
                    };
                    Add(into, family, total, waits.Scale.Apply(total), s.Tags);
                }

                return;
            case FileStatsSource files:
                foreach (var database in inst.FilesByDatabase.Values)
                {
                    long sum = 0;
                    double scaled = 0;
                    foreach (var f in database.Files)
                    {
                        var total = files.Column switch
                        {
                            FileStatsColumn.NumOfWrites => f.Writes.Total,
                            FileStatsColumn.NumOfBytesWritten => f.Bytes.Total,
                            _ => f.StallMs.Total,
                        };
                        sum += total;
                        scaled += files.Scale.Apply(total);
                    }

                    Add(into, family, sum, scaled, database.Tags);
                }

                return;
            case ReplicaSource replica:
                ReadReplicas(inst, family, replica, into);
                return;
            case AggregationSource { Fact: AggregationFact.InstanceStartTime }:
                if (inst.StartTimeUtc != default)
                {
                    var seconds = (inst.StartTimeUtc - DateTime.UnixEpoch).TotalSeconds;
                    Add(into, family, (long)seconds, seconds, inst.Tags);
                }

                return;
            case AggregationSource { Fact: AggregationFact.InstanceRestarts }:
                Add(into, family, inst.Restarts, inst.Restarts, inst.Tags);
                return;
            case AggregationSource { Fact: AggregationFact.EventsReceived }:
                Add(into, family, inst.EventsReceived, inst.EventsReceived, inst.Tags);
                return;
            case AggregationSource { Fact: AggregationFact.EventsLost }:
                for (var k = 0; k < inst.Lost.Length; k++)
                {
                    Add(into, family, inst.Lost[k], inst.Lost[k], inst.LossTags[k]);
                }

                return;
            case AggregationSource { Fact: AggregationFact.AgreementRatio }:
                for (var q = 0; q < inst.Agreement.Checks.Length; q++)
                {
                    if (inst.Agreement.Checks[q].Ratio is { } agreement)
                    {
                        Add(into, family, (long)agreement, agreement, inst.Agreement.Tags[q]);
                    }
                }

                return;
            case AggregationSource { Fact: AggregationFact.EventLossRatio }:
                foreach (var s in inst.LossSeries)
                {
                    if (s.LossRatio is { } ratio)
                    {
                        Add(into, family, (long)ratio, ratio, s.Tags);
                    }
                }

                return;
            case AggregationSource { Fact: AggregationFact.OutstandingFlushes or AggregationFact.OutstandingFlushAge or AggregationFact.WriteLogWaiting or AggregationFact.WriteLogLongestWait } inFlight:
                ReadInFlight(inst, family, inFlight.Fact, into);
                return;
            case AggregationSource { Fact: AggregationFact.WriteLogApplicationTime or AggregationFact.WriteLogApplicationWaits } apps:
                foreach (var db in inst.Databases)
                {
                    if (db.Applications is { } a)
                    {
                        foreach (var t in a.Exported)
                        {
                            var time = apps.Fact == AggregationFact.WriteLogApplicationTime;
                            Add(into, family, time ? (long)t.Seconds : t.Waits, time ? t.Seconds : t.Waits, t.Tags!);
                        }
                    }
                }

                return;
            case AggregationSource { Fact: AggregationFact.LogWriterBytesUsed or AggregationFact.LogWriterBytesReserved or AggregationFact.LogWriterTransactions } writers:
                foreach (var s in inst.LogWriters.Values)
                {
                    var value = writers.Fact switch
                    {
                        AggregationFact.LogWriterBytesUsed => s.LogBytesUsed,
                        AggregationFact.LogWriterBytesReserved => s.LogBytesReserved,
                        _ => s.Transactions,
                    };
                    Add(into, family, value, value, s.Tags);
                }

                return;
            default:
                throw new InvalidOperationException($"{family.Name}: the aggregation has no state for {family.Source}.");
        }
    }

    /// <summary>
    /// Under the lock: the series of the per-event histograms, one per database (and wait type) that has a value, as the
    /// SDK holds them (for the series limit, <see cref="LogFlushMetrics.SeriesLimit"/>).
    /// </summary>
    private static void CountEventSeries(InstanceState inst, MeasurementBuffers into)
    {
        int sizes = 0, durations = 0, waits = 0;
        foreach (var db in inst.Databases)
        {
            sizes += db.Sizes.Count > 0 ? 1 : 0;
            durations += db.FlushDurations.Count > 0 ? 1 : 0;
            foreach (var w in db.Waits)
            {
                waits += w.Durations.Count > 0 ? 1 : 0;
            }
        }

        into.NoteSeries(WriteSizes, sizes);
        into.NoteSeries(FlushDurations, durations);
        into.NoteSeries(WaitDurations, waits);
    }

    private static void Add(MeasurementBuffers into, MetricDefinition family, long integer, double fraction, KeyValuePair<string, object?>[] tags)
    {
        if (family.IsInteger)
        {
            into.Add(family, integer, tags);
        }
        else
        {
            into.Add(family, fraction, tags);
        }
    }
}

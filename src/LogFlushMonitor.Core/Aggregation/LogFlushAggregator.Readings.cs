using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>What the observable instruments read at collection time (<see cref="IAggregationReadings"/>).</summary>
public sealed partial class LogFlushAggregator
{
    /// <summary>Where each database's measurement is in the list being filled (<see cref="SumFilesByDatabase"/>); used under the lock.</summary>
    private readonly Dictionary<string, int> _databaseScratch = new(StringComparer.Ordinal);

    /// <inheritdoc />
    public void ReadLong(AggregationReading reading, List<Measurement<long>> into)
    {
        ArgumentNullException.ThrowIfNull(into);
        var list = into;
        lock (_gate)
        {
            foreach (var inst in _instances.Values)
            {
                switch (reading)
                {
                    case AggregationReading.InstanceRestarts:
                        list.Add(new(inst.Restarts, inst.Tags));
                        break;
                    case AggregationReading.EventsReceived:
                        list.Add(new(inst.EventsReceived, inst.Tags));
                        break;
                    case AggregationReading.EventsLost:
                        for (var k = 0; k < inst.Lost.Length; k++)
                        {
                            list.Add(new(inst.Lost[k], LossTags(inst, (LossKind)k)));
                        }

                        break;
                    case AggregationReading.WaitTasks:
                        foreach (var s in inst.WaitStats.Values)
                        {
                            list.Add(new(s.Tasks.Total, s.Tags));
                        }

                        break;
                    case AggregationReading.LogFlushOutstanding or AggregationReading.WriteLogWaiting:
                        ReadInFlight(inst, reading, list);
                        break;
                    case AggregationReading.LogFileWrites or AggregationReading.LogFileWrittenBytes:
                        SumFilesByDatabase(inst, list, reading == AggregationReading.LogFileWrites ? static f => f.Writes.Total : static f => f.Bytes.Total);
                        break;
                    case AggregationReading.LogFlushes or AggregationReading.LogFlushedBytes or AggregationReading.LogFlushWaits
                        or AggregationReading.LogUsedSize or AggregationReading.LogSize
                        or AggregationReading.InstanceLogFlushes or AggregationReading.InstanceLogFlushedBytes or AggregationReading.InstanceLogFlushWaits
                        or AggregationReading.InstanceLogUsedSize or AggregationReading.InstanceLogSize:
                        var (export, total) = CounterCatalog.ExportOf(reading);
                        foreach (var s in inst.Counters.Values)
                        {
                            // A size never read (its only reading refused) is left out, not exported as 0.
                            if (s.Export == export && s.IsInstanceTotal == total && (CounterCatalog.IsCumulative(s.CounterType) || s.Point.HasValue))
                            {
                                list.Add(new((long)s.ExportedValue, s.Tags));
                            }
                        }

                        break;
                    default:
                        throw new ArgumentOutOfRangeException(nameof(reading), reading, "Not an integer-valued reading.");
                }
            }
        }
    }

    /// <inheritdoc />
    public void ReadDouble(AggregationReading reading, List<Measurement<double>> into)
    {
        ArgumentNullException.ThrowIfNull(into);
        var list = into;
        lock (_gate)
        {
            foreach (var inst in _instances.Values)
            {
                switch (reading)
                {
                    case AggregationReading.InstanceStartTime:
                        if (inst.StartTimeUtc != default)
                        {
                            list.Add(new((inst.StartTimeUtc - DateTime.UnixEpoch).TotalSeconds, inst.Tags));
                        }

                        break;
                    case AggregationReading.EventLossRatio:
                        foreach (var s in inst.Counters.Values)
                        {
                            if (s.LossRatio is { } ratio)
                            {
                                list.Add(new(ratio, s.Tags));
                            }
                        }

                        break;
                    case AggregationReading.WaitTime or AggregationReading.WaitSignalTime:
                        foreach (var s in inst.WaitStats.Values)
                        {
                            var ms = reading == AggregationReading.WaitSignalTime ? s.SignalTimeMs.Total : s.WaitTimeMs.Total;
                            list.Add(new(ms / 1000.0, s.Tags));
                        }

                        break;
                    case AggregationReading.LogFlushOutstandingAge or AggregationReading.WriteLogLongestWait:
                        ReadInFlight(inst, reading, list);
                        break;
                    case AggregationReading.LogFileWriteStall:
                        SumFilesByDatabase(inst, list, static f => f.StallMs.Total / 1000.0);
                        break;
                    case AggregationReading.LogFlushWaitTime or AggregationReading.LogUsage or AggregationReading.PerformanceTotal
                        or AggregationReading.PerformanceValue or AggregationReading.PerformanceFraction or AggregationReading.PerformanceAverage
                        or AggregationReading.InstanceLogFlushWaitTime or AggregationReading.InstancePerformanceTotal or AggregationReading.InstancePerformanceValue
                        or AggregationReading.InstancePerformanceFraction or AggregationReading.InstancePerformanceAverage:
                        var (export, total) = CounterCatalog.ExportOf(reading);
                        foreach (var s in inst.Counters.Values)
                        {
                            // A point value not computable yet (a first average, a zero base) is left out, not exported as 0.
                            if (s.Export == export && s.IsInstanceTotal == total && (CounterCatalog.IsCumulative(s.CounterType) || s.Point.HasValue))
                            {
                                list.Add(new(s.ExportedValue, s.Tags));
                            }
                        }

                        break;
                    default:
                        throw new ArgumentOutOfRangeException(nameof(reading), reading, "Not a fractional reading.");
                }
            }
        }
    }

    /// <summary>
    /// One measurement per database (the sum over its log files), in the order each database's first file was seen,
    /// with the tags of that first file. Uses a scratch index kept under the lock, so a scrape allocates nothing here.
    /// </summary>
    private void SumFilesByDatabase<T>(InstanceState inst, List<Measurement<T>> list, Func<FileStatsSeries, T> value)
        where T : struct, System.Numerics.INumber<T>
    {
        _databaseScratch.Clear();
        foreach (var f in inst.FileStats.Values)
        {
            if (_databaseScratch.TryGetValue(f.DatabaseName, out var at))
            {
                var m = list[at];
                list[at] = new(m.Value + value(f), m.Tags);
            }
            else
            {
                _databaseScratch[f.DatabaseName] = list.Count;
                list.Add(new(value(f), f.Tags));
            }
        }
    }

    private static KeyValuePair<string, object?>[] LossTags(InstanceState inst, LossKind kind) =>
        [new(MetricAttributes.Instance, inst.ExportName), new(MetricAttributes.LossKind, LossKindNames.Of(kind))];
}

using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>What the observable families read at collection time (<see cref="IMetricReadings"/>): the events' own, and each signal's state.</summary>
public sealed partial class LogFlushAggregator
{
    private static readonly MetricDefinition WriteSizes = MetricCatalog.All.Single(f => f.Measure == EventMeasure.FlushWriteSize);
    private static readonly MetricDefinition FlushDurations = MetricCatalog.All.Single(f => f.Measure == EventMeasure.FlushDuration);
    private static readonly MetricDefinition WaitDurations = MetricCatalog.All.Single(f => f.Measure == EventMeasure.WaitDuration);
    private static readonly MetricDefinition ApplicationTime = MetricCatalog.Get("sqlserver.database.writelog.application.time");
    private static readonly MetricDefinition ApplicationWaits = MetricCatalog.Get("sqlserver.database.writelog.application.waits");
    private static readonly MetricDefinition StatementTime = MetricCatalog.Get("sqlserver.database.writelog.statement.time");
    private static readonly MetricDefinition StatementWaits = MetricCatalog.Get("sqlserver.database.writelog.statement.waits");
    private static readonly MetricDefinition EventsReceived = MetricCatalog.Get("sqlserver.monitor.events");
    private static readonly MetricDefinition EventsLost = MetricCatalog.Get("sqlserver.monitor.events.lost");
    private static readonly MetricDefinition EventsUnlisted = MetricCatalog.Get("sqlserver.monitor.events.unlisted");
    private static readonly MetricDefinition Agreement = MetricCatalog.Get("sqlserver.monitor.agreement");
    private static readonly MetricDefinition CommitWaitTime = MetricCatalog.Get("sqlserver.commit.wait.time");

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
                ReadEvents(inst, into);
                foreach (var state in inst.States)
                {
                    state.Read(into);
                }

                CountEventSeries(inst, into);
                inst.Budgets.Read(into, CommitWaitTime); // brought up to date by the polls (Signals.cs), not here: a read allocates nothing
            }
        }
    }

    /// <summary>Under the lock: the families of the events the aggregation keeps itself (the signals read their own).</summary>
    private static void ReadEvents(InstanceState inst, MeasurementBuffers into)
    {
        foreach (var db in inst.Databases)
        {
            if (db.Applications is { } a)
            {
                foreach (var t in a.Exported)
                {
                    into.Add(ApplicationTime, t.Amount, t.Tags!);
                    into.Add(ApplicationWaits, t.Count, t.Tags!);
                }
            }

            if (db.Statements is { } s)
            {
                foreach (var t in s.Exported)
                {
                    into.Add(StatementTime, t.Amount, t.Tags!);
                    into.Add(StatementWaits, t.Count, t.Tags!);
                }
            }
        }

        into.Add(EventsReceived, inst.EventsReceived, inst.Tags);
        for (var k = 0; k < inst.Lost.Length; k++)
        {
            into.Add(EventsLost, inst.Lost[k], inst.LossTags[k]);
        }

        into.Add(EventsUnlisted, inst.UnlistedEvents, inst.Tags);

        for (var q = 0; q < inst.Agreement.Checks.Length; q++)
        {
            if (inst.Agreement.Checks[q].Ratio is { } agreement)
            {
                into.Add(Agreement, agreement, inst.Agreement.Tags[q]);
            }
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
}

using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.XEvent.Binary;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// Every row the live stream (<c>sys.fn_MSxe_read_event_stream</c>) delivered, by its <c>type</c>: the reader of an
/// instance hands its <see cref="LiveStreamRowTally"/> over once, as this signal's one row, and each collect reads the
/// counts through it. No row is skipped uncounted: rows of type 2 (not parsed), 3 (nothing to read) and of types no public
/// source names are counted here with those decoded. Stream mode only; never recorded (a recording keeps the events).
/// </summary>
public sealed class StreamRowsSignal : Signal<LiveStreamRowTally>
{
    internal static readonly MetricDefinition Rows = new()
    {
        Name = "sqlserver.monitor.stream.rows", Unit = "{row}", Kind = MetricKind.Counter, IsInteger = true, Attributes = [Instance, RowType], Section = MetricSection.Monitor,
        Description = "Rows the live stream (sys.fn_MSxe_read_event_stream) delivered, by its type column (0, 1, 2, 3 or other), since monitoring began; every row, whatever was made of it.",
        Meaning = "rows of `sys.fn_MSxe_read_event_stream` by its `type` column, every one counted whatever became of it: `row_type` `0` (event buffers, decoded), `1` (metadata, merged), `2` (a stream header: a fresh metadata state, its data not parsed), `3` (index, nothing to read), `other` (a type no public source names: also counted as `malformed` loss and logged once with its first bytes). Microsoft documents the column only as \"the event type\": the meaning of each number is a belief (docs/sqlserver.md); a type-2 or `other` count that grows with the events would show that such rows carry events the monitor does not read. Stream mode only",
        PromQL = "`sum by (sqlserver_instance_name, row_type) (rate(sqlserver_monitor_stream_rows_total[5m]))`",
    };

    internal StreamRowsSignal()
        : base("stream_rows")
    {
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Rows];

    /// <summary>The tally is handed over when the stream first connects: that proves nothing of it.</summary>
    public override string? Component => null;

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>The instance's tally (the last handed over) and the tags of each row type, made once.</summary>
    private sealed class State(InstanceState instance) : SignalState<LiveStreamRowTally>
    {
        private readonly KeyValuePair<string, object?>[][] _tags =
            [.. LiveStreamRowTally.Names.Select(n => new KeyValuePair<string, object?>[] { new(Instance, instance.ExportName), new(RowType, n) })];

        private LiveStreamRowTally? _tally;

        protected override void Apply(SignalBatch<LiveStreamRowTally> batch, SignalOutcome outcome)
        {
            foreach (var tally in batch.Rows)
            {
                _tally = tally;
                instance.StreamConnected = true;
            }
        }

        public override void Read(MeasurementBuffers into)
        {
            if (_tally is not { } tally)
            {
                return;
            }

            for (var i = 0; i < _tags.Length; i++)
            {
                into.Add(Rows, tally.Rows(i), _tags[i]);
            }
        }
    }
}

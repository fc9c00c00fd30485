using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.XEvents;
using static LogFlushMonitor.Core.Metrics.MetricAttributes;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// Flushes started and not completed, which completed-only figures cannot show (a stalled log device completes nothing):
/// the source that pairs an instance's log_flush_start and log_flush_complete as it reads them (the live stream, the
/// simulated and replayed sources' <see cref="OutstandingFlushTracker"/>) hands over its
/// <see cref="OutstandingFlushSource"/> once, as this signal's one row; each collect reads the pair table through it. A
/// later source of the instance replaces it; a closed one is no longer read (its series go). Never recorded: a recording
/// keeps the flush events themselves and a replay pairs them again.
/// </summary>
public sealed class OutstandingFlushesSignal : Signal<OutstandingFlushSource>
{
    private static readonly string[] InstDb = [Instance, Database];

    internal static readonly MetricDefinition Outstanding = new()
    {
        Name = "sqlserver.log.flush.outstanding", Unit = "{flush}", Kind = MetricKind.Gauge, IsInteger = true, Attributes = InstDb, Section = MetricSection.InFlight,
        Description = "Log flushes started and not completed (log_flush_start without its log_flush_complete, paired on log_block_id as the events are read), per database; stream mode only, 0 when none.",
        Meaning = "log flushes started and not completed: a `log_flush_start` whose `log_flush_complete` (same `database_id` and `log_block_id`) has not arrived. Paired as the events are read, before the pipeline's channel (a complete dropped there cannot fake a stall). Stream mode, and the simulated and replayed sources; 0 for a database with events and nothing outstanding; absent in histogram mode (nothing pairs there: the waiters below cover it)",
        PromQL = "`max by (sqlserver_instance_name, sqlserver_database_name) (sqlserver_log_flush_outstanding)`",
    };

    internal static readonly MetricDefinition OutstandingAge = new()
    {
        Name = "sqlserver.log.flush.outstanding.age", Unit = "s", Kind = MetricKind.Gauge, IsInteger = false, Attributes = InstDb, Section = MetricSection.InFlight,
        Description = "How long ago the oldest outstanding log flush started, on the server's clock (0 when none): a start that never completes ages, it does not vanish.",
        Meaning = "how long ago the oldest of them started, when the metrics are read: a start that never completes ages, it does not vanish; 0 when none is outstanding (so the alert is a plain `>= 15`, and the panel a line at zero, not a gap). Measured on the server's clock as the events tell it (the newest event's time plus the local time since it arrived), so a skew between the server's clock and the monitor's does not show; a healthy flush in flight reads at most the session's dispatch latency (5 s)",
        PromQL = "`max by (sqlserver_instance_name, sqlserver_database_name) (sqlserver_log_flush_outstanding_age_seconds) >= 15`",
    };

    internal OutstandingFlushesSignal()
        : base("outstanding_flushes")
    {
    }

    /// <inheritdoc />
    public override IReadOnlyList<MetricDefinition> Families { get; } = [Outstanding, OutstandingAge];

    /// <summary>The source is handed over when an instance first shows up: that proves nothing of the stream.</summary>
    public override string? Component => null;

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>The instance's source (the last handed over) and the scratch list a collect reads it into.</summary>
    internal sealed class State(InstanceState instance) : SignalState<OutstandingFlushSource>
    {
        private readonly List<OutstandingFlushReading> _scratch = [];
        private OutstandingFlushSource? _source;

        /// <summary>What <see cref="ReadOutstanding"/> read last.</summary>
        public IReadOnlyList<OutstandingFlushReading> Last => _scratch;

        protected override void Apply(SignalBatch<OutstandingFlushSource> batch, SignalOutcome outcome)
        {
            foreach (var source in batch.Rows)
            {
                _source = source;
            }
        }

        /// <summary>Reads the outstanding flushes into <see cref="Last"/>; false when no open source reports them.</summary>
        public bool ReadOutstanding()
        {
            _scratch.Clear();
            if (_source is not { } source)
            {
                return false;
            }

            if (source.IsClosed)
            {
                _source = null; // the source stopped: its series go
                return false;
            }

            source.Read(_scratch);
            return true;
        }

        /// <summary>What <see cref="Last"/> says of <paramref name="databaseId"/>.</summary>
        public OutstandingFlushReading Of(int databaseId)
        {
            foreach (var o in _scratch)
            {
                if (o.DatabaseId == databaseId)
                {
                    return o;
                }
            }

            return new OutstandingFlushReading(databaseId, 0, 0);
        }

        /// <summary>
        /// Every database with event state (0 when nothing is outstanding, so "measured, none" differs from "not measured":
        /// an instance in histogram mode has no such series), plus any database with outstanding flushes whose events all
        /// went missing on the way.
        /// </summary>
        public override void Read(MeasurementBuffers into)
        {
            if (!ReadOutstanding())
            {
                return;
            }

            foreach (var db in instance.Databases)
            {
                var o = Of(db.DatabaseId);
                into.Add(Outstanding, o.Count, db.Tags);
                into.Add(OutstandingAge, o.OldestAgeSeconds, db.Tags);
            }

            foreach (var o in _scratch)
            {
                if (instance.Find(o.DatabaseId) is null)
                {
                    var name = Limit(instance.Names.GetValueOrDefault(o.DatabaseId) ?? UnnamedDatabase(o.DatabaseId));
                    KeyValuePair<string, object?>[] tags = [new(Instance, instance.ExportName), new(Database, name)];
                    into.Add(Outstanding, o.Count, tags);
                    into.Add(OutstandingAge, o.OldestAgeSeconds, tags);
                }
            }
        }
    }
}

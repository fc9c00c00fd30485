using System.Text.Json.Serialization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// <see cref="Count"/> log flushes of <see cref="WriteSize"/> bytes each, counted by a server-side histogram target
/// (package0.histogram on log_flush_start.write_size) since the previous reading.
/// </summary>
/// <param name="DatabaseId">database_id the target covers, 0 for an instance-wide target.</param>
/// <param name="DatabaseName">The database name, "(all)" for an instance-wide target, or null when unknown.</param>
/// <param name="WriteSize">The slot's write size in bytes.</param>
/// <param name="Count">Flushes of that size since the previous reading (positive).</param>
public readonly record struct FlushBucketRow(
    [property: JsonPropertyName("db_id"), JsonRequired] int DatabaseId,
    [property: JsonPropertyName("db")] string? DatabaseName,
    [property: JsonPropertyName("write_size"), JsonRequired] uint WriteSize,
    [property: JsonPropertyName("count"), JsonRequired] long Count);

/// <summary>
/// Histogram mode's flushes: the server counts log_flush_start by write size in a histogram target, and each read's
/// increase per slot arrives as one row, applied as that many flushes of that size (into the write-size histogram the
/// events feed, and into the agreement). The target is read by the histogram source (SqlServer/Histogram), which owns
/// the session of that mode; a delivery shows the stream component working.
/// </summary>
public sealed class FlushBucketsSignal : Signal<FlushBucketRow>
{
    internal FlushBucketsSignal()
        : base("histogram_buckets")
    {
        Recording = new SignalRecording<FlushBucketRow>(this, "flush_bucket", null, FlushBucketJson.Default.FlushBucketRow,
            r => !DatabaseIds.IsValid(r.DatabaseId) ? $"invalid field 'db_id': {r.DatabaseId} is not a database id (0 to {DatabaseIds.Max})"
                : r.Count <= 0 ? "invalid field 'count': expected a positive integer"
                : null);
    }

    /// <inheritdoc />
    public override string? Component => SourceComponents.Stream;

    /// <inheritdoc />
    public override SignalRecording Recording { get; }

    /// <inheritdoc />
    public override SignalView NewView() => new View(Name);

    internal override SignalState NewState(InstanceState instance) => new State(instance);

    /// <summary>Each database's flushes counted by the histogram target: how many, how many bytes, the commonest write size.</summary>
    private sealed class View(string signal) : SignalView<FlushBucketRow>
    {
        private readonly Dictionary<(string Instance, int DatabaseId), (string? Database, long Flushes, long Bytes, Dictionary<uint, long> BySize)> _databases = [];

        protected override void Observe(string instance, DateTime timestampUtc, in FlushBucketRow row)
        {
            if (row.Count <= 0)
            {
                return;
            }

            var key = (instance, row.DatabaseId);
            if (!_databases.TryGetValue(key, out var db))
            {
                db = (null, 0, 0, []);
            }

            db.Database = row.DatabaseName ?? db.Database;
            db.Flushes += row.Count;
            db.Bytes += (long)Math.Min((double)row.WriteSize * row.Count, long.MaxValue - (double)db.Bytes);
            db.BySize[row.WriteSize] = db.BySize.GetValueOrDefault(row.WriteSize) + row.Count;
            _databases[key] = db;
        }

        public override SignalTable? Table() => _databases.Count == 0 ? null : new SignalTable(
            signal, "Flushes counted by write size (histogram target)",
            [new("instance"), new("database_id"), new("database"), new("flushes"), new("bytes per flush", "B"), new("commonest write size", "B"), new("its share", "%")],
            [.. _databases.OrderBy(d => d.Key.Instance, StringComparer.Ordinal).ThenByDescending(d => d.Value.Flushes).ThenBy(d => d.Key.DatabaseId).Select(d =>
            {
                var common = d.Value.BySize.OrderByDescending(b => b.Value).ThenBy(b => b.Key).First();
                return (IReadOnlyList<object?>)[d.Key.Instance, (long)d.Key.DatabaseId, d.Value.Database, d.Value.Flushes,
                    (double)d.Value.Bytes / d.Value.Flushes, (long)common.Key, 100.0 * common.Value / d.Value.Flushes];
            })],
            ["In histogram mode the server counts log_flush_start by database and write size and the monitor reads the counts: these are those flushes, without times (so not in the timeline)."]);
    }

    private sealed class State(InstanceState instance) : SignalState<FlushBucketRow>
    {
        protected override void Apply(SignalBatch<FlushBucketRow> batch, SignalOutcome outcome)
        {
            foreach (ref readonly var bucket in batch.Rows)
            {
                if (bucket.Count <= 0)
                {
                    continue;
                }

                if (!DatabaseIds.IsValid(bucket.DatabaseId))
                {
                    instance.Lost[(int)LossKind.Malformed] += bucket.Count;
                    continue;
                }

                instance.EventsReceived += bucket.Count;
                var db = instance.Database(bucket.DatabaseId, bucket.DatabaseName);
                if (instance.IsListed(db))
                {
                    instance.Agreement.FlushStarts += bucket.Count;
                    instance.Agreement.FlushBytes += bucket.WriteSize * bucket.Count;
                    // An instance-wide target counts every database its predicate lets through, hidden ones included.
                    instance.Agreement.InstanceWideBuckets |= bucket.DatabaseId == 0;
                }
                else
                {
                    instance.UnlistedEvents += bucket.Count;
                }

                db.Touch(batch.TimestampUtc);
                db.Sizes.Add(bucket.WriteSize, bucket.Count);
                // Recorded once the lock is released: a large count must not hold up collection or other sources.
                outcome.RecordWriteSizes(bucket.WriteSize, bucket.Count, db.Tags);
            }
        }
    }
}

/// <summary>The flush_bucket line's contract.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(FlushBucketRow))]
internal sealed partial class FlushBucketJson : JsonSerializerContext;

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

    internal override SignalState NewState(InstanceState instance) => new State(instance);

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
                instance.Agreement.FlushStarts += bucket.Count;
                instance.Agreement.FlushBytes += bucket.WriteSize * bucket.Count;
                var db = instance.Database(bucket.DatabaseId, bucket.DatabaseName);
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

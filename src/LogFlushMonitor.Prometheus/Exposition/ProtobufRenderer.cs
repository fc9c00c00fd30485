using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>
/// Renders a batch as length-delimited <c>io.prometheus.client.MetricFamily</c> messages (the protobuf exposition,
/// prometheus/client_model <c>io/prometheus/client/metrics.proto</c>): the same families, names, labels and values as
/// the text (<see cref="PrometheusRenderer"/>), and histograms with both their classic buckets and, when the stream has
/// an exponential twin (<see cref="PrometheusNativeHistograms"/>), the native (sparse) representation. Each family is
/// built in a scratch buffer (its length prefix comes first), then copied to the output. Not thread-safe: the scrape
/// handler runs one collect at a time.
/// </summary>
internal sealed class ProtobufRenderer : IDisposable
{
    /// <summary>
    /// The zero bucket's width: 2^-128, as Prometheus's Go client sets by default. A positive width also makes
    /// Prometheus 2.42 to 2.44 (which look only at the family's first series) read a histogram with no observation yet
    /// as native; the SDK's zero bucket counts exact zeros, which fall within it.
    /// </summary>
    internal static readonly double ZeroThreshold = Math.ScaleB(1, -128);

    // MetricFamily fields, the MetricType enum, Metric fields, Histogram, Bucket and BucketSpan fields (metrics.proto).
    private const int FamilyName = 1, FamilyHelp = 2, FamilyType = 3, FamilyMetric = 4;
    private const int TypeCounter = 0, TypeGauge = 1, TypeHistogram = 4;
    private const int MetricLabel = 1, MetricGauge = 2, MetricCounter = 3, MetricTimestamp = 6, MetricHistogram = 7;
    private const int SampleCount = 1, SampleSum = 2, HistogramBucket = 3, Schema = 5, ZeroThresholdField = 6, ZeroCount = 7;
    private const int PositiveSpan = 12, PositiveDelta = 13;
    private const int BucketCumulativeCount = 1, BucketUpperBound = 2;
    private const int SpanOffset = 1, SpanLength = 2;

    // A gap of up to this many empty buckets stays inside a span (a delta byte each) rather than opening a new span.
    private const int MaxInlineGap = 2;

    private readonly PrometheusExporterOptions _options;
    private readonly Dictionary<Metric, MetricFamily> _families = new(ReferenceEqualityComparer.Instance);
    private readonly LabelNames _labelNames = new();
    private readonly Dictionary<string, Metric> _twins = new(StringComparer.Ordinal);
    private readonly HashSet<string> _emittedNames = new(StringComparer.Ordinal);
    private readonly HashSet<string> _emittedScopes = new(StringComparer.Ordinal);
    private readonly Utf8TextBuffer _family = new(64 * 1024);
    private readonly Utf8TextBuffer _metric = new(1024);
    private readonly Utf8TextBuffer _histogram = new(1024);
    private readonly Utf8TextBuffer _deltas = new(1024);
    private readonly Utf8TextBuffer _value = new(256);
    private readonly Utf8TextBuffer _scopeInfo = new(1024);
    private Resource? _targetResource;
    private byte[] _targetInfo = [];

    public ProtobufRenderer(PrometheusExporterOptions options) => _options = options;

    /// <summary>Metric streams dropped so far because their Prometheus name was already taken in the same scrape.</summary>
    public long DroppedDuplicateMetrics { get; private set; }

    public void Dispose()
    {
        _family.Dispose();
        _metric.Dispose();
        _histogram.Dispose();
        _deltas.Dispose();
        _value.Dispose();
        _scopeInfo.Dispose();
    }

    public void Render(in Batch<Metric> batch, Resource resource, Utf8TextBuffer output)
    {
        _emittedNames.Clear();
        _emittedScopes.Clear();
        _scopeInfo.Clear();
        _twins.Clear();
        if (_options.TargetInfoEnabled)
        {
            WriteTargetInfo(resource, output);
        }

        var streams = 0;
        foreach (var metric in batch)
        {
            streams++;
            if (GetFamily(metric) is { Kind: FamilyKind.NativeTwin, TwinOf: { } classic })
            {
                _twins[classic] = metric;
            }
        }

        foreach (var metric in batch)
        {
            var family = GetFamily(metric);
            if (family.Kind is FamilyKind.Unsupported or FamilyKind.NativeTwin)
            {
                continue;
            }

            if (!_emittedNames.Add(family.Name))
            {
                DroppedDuplicateMetrics++;
                continue;
            }

            if (family.ProtoScopeInfo is not null && _emittedScopes.Add(family.ScopeKey!))
            {
                Protobuf.WriteBytesField(_scopeInfo, FamilyMetric, family.ProtoScopeInfo);
            }

            _family.Clear();
            Protobuf.WriteBytesField(_family, FamilyName, family.NameBytes);
            if (family.Help is not null)
            {
                Protobuf.WriteBytesField(_family, FamilyHelp, family.Help);
            }

            Protobuf.WriteVarintField(_family, FamilyType, family.Kind switch
            {
                FamilyKind.Counter => TypeCounter,
                FamilyKind.Gauge => TypeGauge,
                _ => TypeHistogram,
            });

            var twin = family.Kind == FamilyKind.Histogram && _twins.TryGetValue(metric.Name, out var t) ? t : null;
            var twinPoints = (twin?.GetMetricPoints() ?? default).GetEnumerator();
            foreach (ref readonly var point in metric.GetMetricPoints())
            {
                _metric.Clear();
                WriteLabels(point.Tags, _metric);
                _metric.Write(family.ProtoScopeLabels);
                switch (family.Kind)
                {
                    case FamilyKind.Counter or FamilyKind.Gauge:
                        Protobuf.WriteTag(_metric, family.Kind == FamilyKind.Counter ? MetricCounter : MetricGauge, Protobuf.LengthDelimited);
                        Protobuf.WriteVarint(_metric, 9);
                        Protobuf.WriteDoubleField(_metric, 1, ValueOf(metric.MetricType, in point));
                        break;
                    case FamilyKind.Histogram:
                        WriteClassicHistogram(in point, twin, ref twinPoints);
                        break;
                    default:
                        WriteNativeOnlyHistogram(in point);
                        break;
                }

                if (_options.TimestampsEnabled)
                {
                    Protobuf.WriteVarintField(_metric, MetricTimestamp, (ulong)point.EndTime.ToUnixTimeMilliseconds());
                }

                Protobuf.WriteBytesField(_family, FamilyMetric, _metric.WrittenSpan);
            }

            WriteDelimited(output, _family.WrittenSpan);
        }

        if (_scopeInfo.Length > 0 && _emittedNames.Add("otel_scope_info"))
        {
            _family.Clear();
            Protobuf.WriteBytesField(_family, FamilyName, "otel_scope_info"u8);
            Protobuf.WriteBytesField(_family, FamilyHelp, "Instrumentation Scope metadata"u8);
            Protobuf.WriteVarintField(_family, FamilyType, TypeGauge);
            _family.Write(_scopeInfo.WrittenSpan);
            WriteDelimited(output, _family.WrittenSpan);
        }

        if (_families.Count > (2 * streams) + 16)
        {
            _families.Clear();
        }
    }

    private static double ValueOf(MetricType type, in MetricPoint point) => type switch
    {
        MetricType.LongSum or MetricType.LongSumNonMonotonic => point.GetSumLong(),
        MetricType.DoubleSum or MetricType.DoubleSumNonMonotonic => point.GetSumDouble(),
        MetricType.LongGauge => point.GetGaugeLastValueLong(),
        _ => point.GetGaugeLastValueDouble(),
    };

    /// <summary>
    /// A classic stream's histogram: its buckets, and the native buckets of its twin's point with the same attributes.
    /// The twin's points come in the same order (both streams see every measurement in turn, so their series are
    /// created in the same order); a twin point out of step is looked up by attributes instead.
    /// </summary>
    private void WriteClassicHistogram(in MetricPoint point, Metric? twin, ref MetricPointsAccessor.Enumerator twinPoints)
    {
        _histogram.Clear();
        var native = false;
        if (twin is not null)
        {
            if (twinPoints.MoveNext() && SameTags(point.Tags, twinPoints.Current.Tags))
            {
                native = WriteNative(in twinPoints.Current);
            }
            else
            {
                foreach (ref readonly var candidate in twin.GetMetricPoints())
                {
                    if (SameTags(point.Tags, candidate.Tags))
                    {
                        native = WriteNative(in candidate);
                        break;
                    }
                }
            }
        }

        if (!native)
        {
            WriteCountAndSum(in point);
        }

        // Cumulative counts per finite bound. The +Inf bucket is left out (the format allows it): Prometheus makes it
        // from sample_count, which with a twin is the twin's count, so +Inf and the native count always agree. A
        // measurement recorded between the two streams' collects can make a finite bucket exceed the count by as much
        // for that one scrape; both streams are cumulative, so the next scrape agrees again.
        long cumulative = 0;
        foreach (var bucket in point.GetHistogramBuckets())
        {
            cumulative += bucket.BucketCount;
            if (double.IsPositiveInfinity(bucket.ExplicitBound))
            {
                break;
            }

            var body = 1 + Protobuf.VarintSize((ulong)cumulative) + 9;
            Protobuf.WriteTag(_histogram, HistogramBucket, Protobuf.LengthDelimited);
            Protobuf.WriteVarint(_histogram, (ulong)body);
            Protobuf.WriteVarintField(_histogram, BucketCumulativeCount, (ulong)cumulative);
            Protobuf.WriteDoubleField(_histogram, BucketUpperBound, bucket.ExplicitBound);
        }

        Protobuf.WriteBytesField(_metric, MetricHistogram, _histogram.WrittenSpan);
    }

    /// <summary>An exponential stream with no classic one beside it: a histogram with native buckets only.</summary>
    private void WriteNativeOnlyHistogram(in MetricPoint point)
    {
        _histogram.Clear();
        if (!WriteNative(in point))
        {
            WriteCountAndSum(in point);
        }

        Protobuf.WriteBytesField(_metric, MetricHistogram, _histogram.WrittenSpan);
    }

    private void WriteCountAndSum(in MetricPoint point)
    {
        Protobuf.WriteVarintField(_histogram, SampleCount, (ulong)point.GetHistogramCount());

        // As in the text: the sum only when it cannot decrease (no negative measurement).
        if (!point.TryGetHistogramMinMaxValues(out var min, out _) || min >= 0)
        {
            Protobuf.WriteDoubleField(_histogram, SampleSum, point.GetHistogramSum());
        }
    }

    /// <summary>
    /// The native part, from an exponential point: schema, zero bucket, spans and deltas. OpenTelemetry's bucket
    /// <c>i</c> is (base^i, base^(i+1)], Prometheus's is (base^(i-1), base^i]: the same bucket is one index higher in
    /// Prometheus. A scale above 8 (Prometheus's highest schema) is merged down to 8, exactly (each bucket at a lower
    /// scale is the union of 2^n buckets at the higher one); one below -4 cannot be written, and the histogram is then
    /// sent classic only (false).
    /// </summary>
    private bool WriteNative(in MetricPoint point)
    {
        var data = point.GetExponentialHistogramData();
        if (data.Scale < PrometheusNativeHistograms.MinSchema)
        {
            return false;
        }

        var shift = Math.Max(0, data.Scale - PrometheusNativeHistograms.MaxSchema);
        WriteCountAndSum(in point);
        Protobuf.WriteSignedField(_histogram, Schema, data.Scale - shift);
        Protobuf.WriteDoubleField(_histogram, ZeroThresholdField, ZeroThreshold);
        Protobuf.WriteVarintField(_histogram, ZeroCount, (ulong)data.ZeroCount);
        // The SDK (1.20) exposes the positive buckets only; its negative ones are internal. Histograms of sizes and
        // durations record no negative value; one that did would count it in sample_count but in no bucket.
        WriteBuckets(data.PositiveBuckets, shift, PositiveSpan, PositiveDelta);
        return true;
    }

    private void WriteBuckets(ExponentialHistogramBuckets buckets, int shift, int spanField, int deltaField)
    {
        _deltas.Clear();
        var spans = new SpanWriter(_histogram, _deltas, spanField);
        long index = buckets.Offset;
        long merged = long.MinValue;
        long count = 0;
        foreach (var bucketCount in buckets)
        {
            var target = index >> shift;
            if (target != merged)
            {
                if (count > 0)
                {
                    spans.Add(merged + 1, count);
                }

                merged = target;
                count = 0;
            }

            count += bucketCount;
            index++;
        }

        if (count > 0)
        {
            spans.Add(merged + 1, count);
        }

        spans.Close();
        if (_deltas.Length > 0)
        {
            Protobuf.WriteBytesField(_histogram, deltaField, _deltas.WrittenSpan); // packed sint64
        }
    }

    /// <summary>Groups non-empty buckets (by Prometheus index, ascending) into spans, and their counts into deltas.</summary>
    private ref struct SpanWriter(Utf8TextBuffer spans, Utf8TextBuffer deltas, int field)
    {
        private bool _open;
        private long _spanOffset;
        private long _spanLength;
        private long _last;
        private long _previous;

        public void Add(long index, long count)
        {
            if (!_open)
            {
                _open = true;
                _spanOffset = index; // the first span's offset is the absolute index
                _spanLength = 0;
            }
            else
            {
                var gap = index - _last - 1;
                if (gap <= MaxInlineGap)
                {
                    for (var i = 0; i < gap; i++)
                    {
                        Delta(0);
                    }

                    _spanLength += gap;
                }
                else
                {
                    WriteSpan();
                    _spanOffset = gap; // later spans: the gap since the previous one
                    _spanLength = 0;
                }
            }

            Delta(count);
            _spanLength++;
            _last = index;
        }

        public readonly void Close()
        {
            if (_open)
            {
                WriteSpan();
            }
        }

        private void Delta(long count)
        {
            Protobuf.WriteVarint(deltas, Protobuf.ZigZag(count - _previous));
            _previous = count;
        }

        private readonly void WriteSpan()
        {
            var offset = Protobuf.ZigZag(_spanOffset);
            var body = 1 + Protobuf.VarintSize(offset) + 1 + Protobuf.VarintSize((ulong)_spanLength);
            Protobuf.WriteTag(spans, field, Protobuf.LengthDelimited);
            Protobuf.WriteVarint(spans, (ulong)body);
            Protobuf.WriteVarintField(spans, SpanOffset, offset);
            Protobuf.WriteVarintField(spans, SpanLength, (ulong)_spanLength);
        }
    }

    private static bool SameTags(ReadOnlyTagCollection a, ReadOnlyTagCollection b)
    {
        if (a.Count != b.Count)
        {
            return false;
        }

        var other = b.GetEnumerator();
        foreach (var tag in a)
        {
            if (!other.MoveNext() || !string.Equals(tag.Key, other.Current.Key, StringComparison.Ordinal) || !Equals(tag.Value, other.Current.Value))
            {
                return false;
            }
        }

        return true;
    }

    private void WriteLabels(ReadOnlyTagCollection tags, Utf8TextBuffer output)
    {
        if (_labelNames.Collide(tags))
        {
            var pairs = new List<KeyValuePair<string, object?>>(tags.Count);
            foreach (var tag in tags)
            {
                pairs.Add(tag);
            }

            LabelSet.WriteMergedPairs(pairs, MetricLabel, output);
            return;
        }

        foreach (var tag in tags)
        {
            _value.Clear();
            LabelSet.WriteValue(tag.Value, _value, escape: false);
            Protobuf.WriteLabelPair(output, MetricLabel, _labelNames.Of(tag.Key), _value.WrittenSpan);
        }
    }

    private void WriteTargetInfo(Resource resource, Utf8TextBuffer output)
    {
        if (!ReferenceEquals(resource, _targetResource))
        {
            _targetResource = resource;
            var pairs = resource.Attributes.Select(a => new KeyValuePair<string, object?>(a.Key, a.Value)).ToList();
            _targetInfo = [];
            if (pairs.Count > 0)
            {
                using var metric = new Utf8TextBuffer(256);
                LabelSet.WriteMergedPairs(pairs, MetricLabel, metric);
                MetricFamilyFactory.WriteGaugeOfOne(metric);
                using var family = new Utf8TextBuffer(256);
                Protobuf.WriteBytesField(family, FamilyName, "target_info"u8);
                Protobuf.WriteBytesField(family, FamilyHelp, "Target metadata"u8);
                Protobuf.WriteVarintField(family, FamilyType, TypeGauge);
                Protobuf.WriteBytesField(family, FamilyMetric, metric.WrittenSpan);
                using var delimited = new Utf8TextBuffer(256);
                WriteDelimited(delimited, family.WrittenSpan);
                _targetInfo = delimited.WrittenSpan.ToArray();
            }
        }

        if (_targetInfo.Length > 0)
        {
            _emittedNames.Add("target_info");
            output.Write(_targetInfo);
        }
    }

    private static void WriteDelimited(Utf8TextBuffer output, ReadOnlySpan<byte> message)
    {
        Protobuf.WriteVarint(output, (ulong)message.Length);
        output.Write(message);
    }

    private MetricFamily GetFamily(Metric metric)
    {
        if (!_families.TryGetValue(metric, out var family))
        {
            family = MetricFamilyFactory.Create(metric, _options);
            _families[metric] = family;
        }

        return family;
    }
}

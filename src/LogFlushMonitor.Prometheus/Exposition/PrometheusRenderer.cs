using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>
/// Renders a batch of OpenTelemetry metrics as Prometheus text format 0.0.4. Names, headers and label
/// names are cached per metric stream, so a steady-state render only formats values into the buffer.
/// Not thread-safe: the scrape handler runs one collect at a time. Dispose returns its scratch buffers to the pool.
/// </summary>
internal sealed class PrometheusRenderer : IDisposable
{
    private readonly PrometheusExporterOptions _options;
    private readonly Dictionary<Metric, MetricFamily> _families = new(ReferenceEqualityComparer.Instance);
    private readonly LabelNames _labelNames = new();
    private readonly HashSet<string> _emittedNames = new(StringComparer.Ordinal);
    private readonly Utf8TextBuffer _labels = new(1024);
    private readonly Utf8TextBuffer _scopeInfo = new(1024);
    private readonly HashSet<string> _emittedScopes = new(StringComparer.Ordinal);
    private Resource? _targetResource;
    private byte[] _targetInfo = [];

    public PrometheusRenderer(PrometheusExporterOptions options) => _options = options;

    /// <inheritdoc />
    public void Dispose()
    {
        _labels.Dispose();
        _scopeInfo.Dispose();
    }

    /// <summary>Metric streams dropped so far because their Prometheus name was already taken in the same scrape.</summary>
    public long DroppedDuplicateMetrics { get; private set; }

    public void Render(in Batch<Metric> batch, Resource resource, Utf8TextBuffer output)
    {
        _emittedNames.Clear();
        _emittedScopes.Clear();
        _scopeInfo.Clear();
        if (_options.TargetInfoEnabled)
        {
            WriteTargetInfo(resource, output);
        }

        var streams = 0;
        foreach (var metric in batch)
        {
            streams++;
            var family = GetFamily(metric);
            if (family.Kind is not (FamilyKind.Counter or FamilyKind.Gauge or FamilyKind.Histogram))
            {
                // Text format 0.0.4 has no native histograms: exponential streams, and the twins of classic ones, are
                // for the protobuf exposition only.
                continue;
            }

            // Two streams with one Prometheus name would give a second TYPE line, which Prometheus rejects.
            if (!_emittedNames.Add(family.Name))
            {
                DroppedDuplicateMetrics++;
                continue;
            }

            if (family.ScopeInfoLine is not null && _emittedScopes.Add(family.ScopeKey!))
            {
                _scopeInfo.Write(family.ScopeInfoLine);
            }

            output.Write(family.Header);
            foreach (ref readonly var point in metric.GetMetricPoints())
            {
                WritePoint(family, metric.MetricType, in point, output);
            }
        }

        // One family for all scopes: a meter's attributes are not repeated on each of its samples.
        if (_scopeInfo.Length > 0 && _emittedNames.Add("otel_scope_info"))
        {
            output.Write("# HELP otel_scope_info Instrumentation Scope metadata\n# TYPE otel_scope_info gauge\n"u8);
            output.Write(_scopeInfo.WrittenSpan);
        }

        // Streams of disposed instruments leave the batch; forget them rather than grow forever.
        if (_families.Count > (2 * streams) + 16)
        {
            _families.Clear();
        }
    }

    private void WritePoint(MetricFamily family, MetricType type, in MetricPoint point, Utf8TextBuffer output)
    {
        _labels.Clear();
        WriteLabelSet(point.Tags, _labels);
        if (family.ScopeLabels.Length > 0)
        {
            if (_labels.Length > 0)
            {
                _labels.Write((byte)',');
            }

            _labels.Write(family.ScopeLabels);
        }

        var labels = _labels.WrittenSpan;
        var timestamp = _options.TimestampsEnabled ? point.EndTime.ToUnixTimeMilliseconds() : -1;
        switch (family.Kind)
        {
            case FamilyKind.Counter or FamilyKind.Gauge:
                WriteSampleStart(output, family.NameBytes, labels);
                switch (type)
                {
                    case MetricType.LongSum or MetricType.LongSumNonMonotonic:
                        output.WriteLong(point.GetSumLong());
                        break;
                    case MetricType.DoubleSum or MetricType.DoubleSumNonMonotonic:
                        output.WriteDouble(point.GetSumDouble());
                        break;
                    case MetricType.LongGauge:
                        output.WriteLong(point.GetGaugeLastValueLong());
                        break;
                    default:
                        output.WriteDouble(point.GetGaugeLastValueDouble());
                        break;
                }

                WriteSampleEnd(output, timestamp);
                break;

            case FamilyKind.Histogram:
                WriteHistogram(family, in point, labels, timestamp, output);
                break;
        }
    }

    private static void WriteHistogram(MetricFamily family, in MetricPoint point, ReadOnlySpan<byte> labels, long timestamp, Utf8TextBuffer output)
    {
        var le = family.LeLabels ??= BuildLeLabels(in point);
        long cumulative = 0;
        var i = 0;
        foreach (var bucket in point.GetHistogramBuckets())
        {
            cumulative += bucket.BucketCount;
            output.Write(family.BucketName);
            output.Write((byte)'{');
            if (!labels.IsEmpty)
            {
                output.Write(labels);
                output.Write((byte)',');
            }

            // Bounds are fixed per stream; a view change makes a new stream, so the cache stays true.
            if (i < le.Length)
            {
                output.Write(le[i]);
            }
            else
            {
                output.Write("le=\""u8);
                output.WriteDouble(bucket.ExplicitBound);
                output.Write("\"}"u8);
            }

            i++;
            output.Write((byte)' ');
            output.WriteLong(cumulative);
            WriteSampleEnd(output, timestamp);
        }

        // The sum is meaningful to Prometheus only when it cannot decrease (no negative measurements).
        if (!point.TryGetHistogramMinMaxValues(out var min, out _) || min >= 0)
        {
            WriteSampleStart(output, family.SumName, labels);
            output.WriteDouble(point.GetHistogramSum());
            WriteSampleEnd(output, timestamp);
        }

        WriteSampleStart(output, family.CountName, labels);
        output.WriteLong(point.GetHistogramCount());
        WriteSampleEnd(output, timestamp);
    }

    private static byte[][] BuildLeLabels(in MetricPoint point)
    {
        var list = new List<byte[]>();
        using var scratch = new Utf8TextBuffer(64);
        foreach (var bucket in point.GetHistogramBuckets())
        {
            scratch.Clear();
            scratch.Write("le=\""u8);
            scratch.WriteDouble(bucket.ExplicitBound);
            scratch.Write("\"}"u8);
            list.Add(scratch.WrittenSpan.ToArray());
        }

        return [.. list];
    }

    private static void WriteSampleStart(Utf8TextBuffer output, byte[] name, ReadOnlySpan<byte> labels)
    {
        output.Write(name);
        if (!labels.IsEmpty)
        {
            output.Write((byte)'{');
            output.Write(labels);
            output.Write((byte)'}');
        }

        output.Write((byte)' ');
    }

    private static void WriteSampleEnd(Utf8TextBuffer output, long timestamp)
    {
        if (timestamp >= 0)
        {
            output.Write((byte)' ');
            output.WriteLong(timestamp);
        }

        output.Write((byte)'\n');
    }

    private void WriteLabelSet(ReadOnlyTagCollection tags, Utf8TextBuffer output)
    {
        if (_labelNames.Collide(tags))
        {
            var pairs = new List<KeyValuePair<string, object?>>(tags.Count);
            foreach (var tag in tags)
            {
                pairs.Add(tag);
            }

            LabelSet.WriteMerged(pairs, output);
            return;
        }

        var first = true;
        foreach (var tag in tags)
        {
            if (!first)
            {
                output.Write((byte)',');
            }

            first = false;
            output.Write(_labelNames.Of(tag.Key));
            output.Write("=\""u8);
            LabelSet.WriteValue(tag.Value, output);
            output.Write((byte)'"');
        }
    }

    private void WriteTargetInfo(Resource resource, Utf8TextBuffer output)
    {
        if (!ReferenceEquals(resource, _targetResource))
        {
            _targetResource = resource;
            var pairs = resource.Attributes.Select(a => new KeyValuePair<string, object?>(a.Key, a.Value)).ToList();
            using var scratch = new Utf8TextBuffer(256);
            if (pairs.Count > 0)
            {
                scratch.Write("# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info{"u8);
                LabelSet.WriteMerged(pairs, scratch);
                scratch.Write("} 1\n"u8);
            }

            _targetInfo = scratch.WrittenSpan.ToArray();
        }

        if (_targetInfo.Length > 0)
        {
            _emittedNames.Add("target_info");
            output.Write(_targetInfo);
        }
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

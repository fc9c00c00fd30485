using System.Text;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>Maps one OpenTelemetry metric stream to its Prometheus family (type, name, header, scope labels).</summary>
internal static class MetricFamilyFactory
{
    public static MetricFamily Create(Metric metric, PrometheusExporterOptions options)
    {
        var kind = KindOf(metric);
        var name = PrometheusNames.FamilyName(
            metric.Name,
            metric.Unit,
            isCounter: kind == FamilyKind.Counter,
            isGauge: metric.MetricType.IsGauge(),
            addTotalSuffix: options.TotalSuffixEnabled);

        using var header = new Utf8TextBuffer(256);
        if (!string.IsNullOrEmpty(metric.Description))
        {
            header.Write("# HELP "u8);
            header.Write(Encoding.UTF8.GetBytes(name));
            header.Write((byte)' ');
            header.WriteEscaped(metric.Description, escapeQuote: false);
            header.Write((byte)'\n');
        }

        header.Write("# TYPE "u8);
        header.Write(Encoding.UTF8.GetBytes(name));
        header.Write(kind switch
        {
            FamilyKind.Counter => " counter\n"u8,
            FamilyKind.Histogram or FamilyKind.NativeHistogram or FamilyKind.NativeTwin => " histogram\n"u8,
            _ => " gauge\n"u8,
        });

        using var scope = new Utf8TextBuffer(128);
        if (options.ScopeLabelsEnabled)
        {
            scope.Write("otel_scope_name=\""u8);
            scope.WriteEscaped(metric.MeterName, escapeQuote: true);
            scope.Write((byte)'"');
            if (!string.IsNullOrEmpty(metric.MeterVersion))
            {
                scope.Write(",otel_scope_version=\""u8);
                scope.WriteEscaped(metric.MeterVersion, escapeQuote: true);
                scope.Write((byte)'"');
            }
        }

        byte[]? scopeInfo = null;
        var meterTags = metric.MeterTags?.ToList();
        if (options.ScopeLabelsEnabled && meterTags is { Count: > 0 })
        {
            using var line = new Utf8TextBuffer(256);
            line.Write("otel_scope_info{"u8);
            line.Write(scope.WrittenSpan);
            line.Write((byte)',');
            LabelSet.WriteMerged(meterTags, line);
            line.Write("} 1\n"u8);
            scopeInfo = line.WrittenSpan.ToArray();
        }

        // The protobuf pieces: scope labels as LabelPair fields (field 1 of Metric), the scope's info series as a
        // whole Metric body (its labels, then a Gauge of 1 in field 2).
        using var protoScope = new Utf8TextBuffer(128);
        if (options.ScopeLabelsEnabled)
        {
            using var value = new Utf8TextBuffer(128);
            value.WriteUtf8(metric.MeterName);
            Protobuf.WriteLabelPair(protoScope, 1, "otel_scope_name"u8, value.WrittenSpan);
            if (!string.IsNullOrEmpty(metric.MeterVersion))
            {
                value.Clear();
                value.WriteUtf8(metric.MeterVersion);
                Protobuf.WriteLabelPair(protoScope, 1, "otel_scope_version"u8, value.WrittenSpan);
            }
        }

        byte[]? protoScopeInfo = null;
        if (scopeInfo is not null)
        {
            using var info = new Utf8TextBuffer(256);
            info.Write(protoScope.WrittenSpan);
            LabelSet.WriteMergedPairs(meterTags!, 1, info);
            WriteGaugeOfOne(info);
            protoScopeInfo = info.WrittenSpan.ToArray();
        }

        return new MetricFamily
        {
            Help = string.IsNullOrEmpty(metric.Description) ? null : Encoding.UTF8.GetBytes(metric.Description),
            ProtoScopeLabels = protoScope.WrittenSpan.ToArray(),
            ProtoScopeInfo = protoScopeInfo,
            TwinOf = kind == FamilyKind.NativeTwin ? metric.Name[..^PrometheusNativeHistograms.StreamSuffix.Length] : null,
            // An exponential histogram is a histogram in the text header too; the text renderer skips it anyway.
            ScopeKey = scopeInfo is null ? null : metric.MeterName + "\n" + metric.MeterVersion,
            ScopeInfoLine = scopeInfo,
            Kind = kind,
            Name = name,
            Header = header.WrittenSpan.ToArray(),
            NameBytes = Encoding.UTF8.GetBytes(name),
            BucketName = Encoding.UTF8.GetBytes(name + "_bucket"),
            SumName = Encoding.UTF8.GetBytes(name + "_sum"),
            CountName = Encoding.UTF8.GetBytes(name + "_count"),
            ScopeLabels = scope.WrittenSpan.ToArray(),
        };
    }

    /// <summary>A protobuf <c>Metric</c>'s <c>gauge</c> field (2) holding a <c>Gauge</c> of value 1.</summary>
    public static void WriteGaugeOfOne(Utf8TextBuffer output)
    {
        Protobuf.WriteTag(output, 2, Protobuf.LengthDelimited);
        Protobuf.WriteVarint(output, 9);
        Protobuf.WriteDoubleField(output, 1, 1);
    }

    private static FamilyKind KindOf(Metric metric)
    {
        // Prometheus has no delta semantics.
        if (metric.Temporality == AggregationTemporality.Delta && !metric.MetricType.IsGauge())
        {
            return FamilyKind.Unsupported;
        }

        return metric.MetricType switch
        {
            MetricType.LongSum or MetricType.DoubleSum => FamilyKind.Counter,
            MetricType.LongSumNonMonotonic or MetricType.DoubleSumNonMonotonic => FamilyKind.Gauge,
            MetricType.LongGauge or MetricType.DoubleGauge => FamilyKind.Gauge,
            MetricType.Histogram => FamilyKind.Histogram,
            MetricType.ExponentialHistogram when metric.Name.EndsWith(PrometheusNativeHistograms.StreamSuffix, StringComparison.Ordinal) => FamilyKind.NativeTwin,
            MetricType.ExponentialHistogram => FamilyKind.NativeHistogram,
            _ => FamilyKind.Unsupported,
        };
    }
}

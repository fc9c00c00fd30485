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
            FamilyKind.Histogram => " histogram\n"u8,
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

        return new MetricFamily
        {
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

    private static FamilyKind KindOf(Metric metric)
    {
        // Text format 0.0.4 has no delta semantics and no native histograms.
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
            _ => FamilyKind.Unsupported,
        };
    }
}

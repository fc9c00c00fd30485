using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>One exported point, copied out of the SDK's reused structures.</summary>
public sealed record ExportedPoint(
    string Name,
    string? Unit,
    MetricType Type,
    IReadOnlyDictionary<string, object?> Tags,
    double Value,
    long Count,
    double Sum,
    IReadOnlyList<(double Bound, long Count)> Buckets);

/// <summary>A few-line in-test exporter (OpenTelemetry.Exporter.InMemory is not served here).</summary>
public sealed class CapturingExporter : BaseExporter<Metric>
{
    private readonly List<ExportedPoint> _points = [];

    public IReadOnlyList<ExportedPoint> Points
    {
        get
        {
            lock (_points)
            {
                return [.. _points];
            }
        }
    }

    public void Clear()
    {
        lock (_points)
        {
            _points.Clear();
        }
    }

    public override ExportResult Export(in Batch<Metric> batch)
    {
        lock (_points)
        {
            foreach (var metric in batch)
            {
                foreach (ref readonly var p in metric.GetMetricPoints())
                {
                    var tags = new Dictionary<string, object?>();
                    foreach (var t in p.Tags)
                    {
                        tags[t.Key] = t.Value;
                    }

                    double value = 0;
                    long count = 0;
                    double sum = 0;
                    var buckets = new List<(double, long)>();
                    switch (metric.MetricType)
                    {
                        case MetricType.LongSum or MetricType.LongSumNonMonotonic:
                            value = p.GetSumLong();
                            break;
                        case MetricType.DoubleSum or MetricType.DoubleSumNonMonotonic:
                            value = p.GetSumDouble();
                            break;
                        case MetricType.LongGauge:
                            value = p.GetGaugeLastValueLong();
                            break;
                        case MetricType.DoubleGauge:
                            value = p.GetGaugeLastValueDouble();
                            break;
                        case MetricType.Histogram:
                            count = p.GetHistogramCount();
                            sum = p.GetHistogramSum();
                            foreach (var b in p.GetHistogramBuckets())
                            {
                                buckets.Add((b.ExplicitBound, b.BucketCount));
                            }

                            break;
                    }

                    _points.Add(new ExportedPoint(metric.Name, metric.Unit, metric.MetricType, tags, value, count, sum, buckets));
                }
            }
        }

        return ExportResult.Success;
    }
}

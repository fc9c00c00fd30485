using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Testing;

/// <summary>Reads one family of the aggregation by name, as a collect reads it (every family, once).</summary>
public static class MetricReadingsExtensions
{
    /// <summary>The measurements of the integer-valued family <paramref name="family"/>.</summary>
    public static List<Measurement<long>> ReadLong(this IMetricReadings readings, string family)
    {
        var buffers = new MeasurementBuffers();
        readings.Read(buffers);
        return buffers.Long(MetricCatalog.Get(family));
    }

    /// <summary>The measurements of the fractional family <paramref name="family"/>.</summary>
    public static List<Measurement<double>> ReadDouble(this IMetricReadings readings, string family)
    {
        var buffers = new MeasurementBuffers();
        readings.Read(buffers);
        return buffers.Double(MetricCatalog.Get(family));
    }
}

using System.Diagnostics.Metrics;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Prometheus;

/// <summary>
/// Native histograms beside the classic ones. The SDK aggregates a histogram stream either with explicit buckets or
/// with base-2 exponential ones, never both, and Prometheus's protobuf exposition carries both in one histogram. So a
/// second view gives each chosen histogram instrument a twin stream, exponential, named after the instrument with
/// <see cref="StreamSuffix"/>: every measurement goes into both, and the protobuf exposition writes the twin's buckets
/// as the native part of the classic stream's histograms (matched by instrument name and attributes). The text
/// exposition ignores twins. Exponential bucket counts are exact counts of what was recorded, so the native buckets are
/// a true signal, not an interpolation of the classic ones.
/// </summary>
public static class PrometheusNativeHistograms
{
    /// <summary>Appended to the instrument name to name its exponential twin stream.</summary>
    public const string StreamSuffix = ".prometheus_native";

    /// <summary>The largest schema Prometheus reads (its native histograms take -4 to 8).</summary>
    public const int MaxSchema = 8;

    /// <summary>The smallest schema Prometheus reads.</summary>
    public const int MinSchema = -4;

    /// <summary>
    /// Adds the view that gives each histogram instrument for which <paramref name="configure"/> returns a configuration
    /// its exponential twin (the configuration's name is replaced by the twin's). Once a view matches an instrument the
    /// SDK no longer makes its default stream, so with <paramref name="addClassicStream"/> a second view keeps the
    /// classic one (explicit buckets at the instrument's advised bounds, else the SDK's defaults); pass false when
    /// another view of the app already configures the classic stream of every instrument chosen here.
    /// </summary>
    public static MeterProviderBuilder AddPrometheusNativeHistogramView(
        this MeterProviderBuilder builder, Func<Instrument, Base2ExponentialBucketHistogramConfiguration?> configure, bool addClassicStream = true)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(configure);
        builder.AddView(instrument =>
        {
            if (!IsHistogram(instrument) || configure(instrument) is not { } twin)
            {
                return null;
            }

            twin.Name = instrument.Name + StreamSuffix;
            return twin;
        });
        if (addClassicStream)
        {
            builder.AddView(instrument => IsHistogram(instrument) && configure(instrument) is not null ? ClassicStream(instrument) : null);
        }

        return builder;
    }

    /// <summary>The stream the SDK would have made without views: the advised bucket bounds, or its default ones.</summary>
    private static MetricStreamConfiguration ClassicStream(Instrument instrument)
    {
        double[]? bounds = instrument switch
        {
            Histogram<long> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b).ToArray(),
            Histogram<double> h => h.Advice?.HistogramBucketBoundaries?.ToArray(),
            Histogram<int> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b).ToArray(),
            Histogram<float> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b).ToArray(),
            _ => null,
        };
        return bounds is null ? new MetricStreamConfiguration() : new ExplicitBucketHistogramConfiguration { Boundaries = bounds };
    }

    private static bool IsHistogram(Instrument instrument) =>
        instrument is Histogram<long> or Histogram<double> or Histogram<int> or Histogram<float> or Histogram<short> or Histogram<byte> or Histogram<decimal>;
}

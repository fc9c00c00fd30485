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
    /// its exponential twin (the configuration's name is replaced by the twin's). Register it besides the views that
    /// configure the classic streams: the SDK makes one stream per matching view.
    /// </summary>
    public static MeterProviderBuilder AddPrometheusNativeHistogramView(
        this MeterProviderBuilder builder, Func<Instrument, Base2ExponentialBucketHistogramConfiguration?> configure)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(configure);
        return builder.AddView(instrument =>
        {
            if (!IsHistogram(instrument) || configure(instrument) is not { } twin)
            {
                return null;
            }

            twin.Name = instrument.Name + StreamSuffix;
            return twin;
        });
    }

    private static bool IsHistogram(Instrument instrument) =>
        instrument is Histogram<long> or Histogram<double> or Histogram<int> or Histogram<float> or Histogram<short> or Histogram<byte> or Histogram<decimal>;
}

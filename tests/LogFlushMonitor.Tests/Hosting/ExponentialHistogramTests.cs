using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Simulation;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>Issue 23 item 4, the OTLP half: Exporters:Otlp:HistogramAggregation=exponential sends base-2 exponential histograms.</summary>
[Collection("host")]
public sealed class ExponentialHistogramTests
{
    private static readonly MonitorOptionsValidator Validator = new(SimulationScenarios.Names);

    /// <summary>What the SDK aggregated for one exponential histogram series: its scale and each bucket's (index, count).</summary>
    private static (int Scale, List<(int Index, long Count)> Buckets) Aggregate(params long[] values)
    {
        var exported = new List<Metric>();
        using var meter = new Meter(LogFlushMetrics.MeterName);
        var sizes = meter.CreateHistogram<long>("sqlserver.log.flush.write_size", "By");
        using var provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddView(i => TelemetryService.StreamConfiguration(i, 2000, exponential: true))
            .AddReader(new BaseExportingMetricReader(new ExportTo(exported)) { TemporalityPreference = MetricReaderTemporalityPreference.Cumulative })
            .Build()!;
        foreach (var v in values)
        {
            sizes.Record(v);
        }

        Assert.True(provider.ForceFlush(5000));
        var metric = Assert.Single(exported, m => m.Name == "sqlserver.log.flush.write_size");
        Assert.Equal(MetricType.ExponentialHistogram, metric.MetricType);
        foreach (ref readonly var point in metric.GetMetricPoints())
        {
            var data = point.GetExponentialHistogramData();
            var buckets = new List<(int, long)>();
            var index = data.PositiveBuckets.Offset;
            foreach (var count in data.PositiveBuckets)
            {
                if (count > 0)
                {
                    buckets.Add((index, count));
                }

                index++;
            }

            return (data.Scale, buckets);
        }

        throw new InvalidOperationException("no point");
    }

    [Fact]
    public void Exponential_write_sizes_keep_512_bytes_on_a_bucket_bound_and_60_KB_in_a_bucket_under_5_percent_wide()
    {
        // 512 B and 64 KB span the write sizes a log produces; the SDK must not lower the scale for them.
        var (scale, buckets) = Aggregate(512, 513, 61440, 65536);

        Assert.Equal(MetricCatalog.WriteSizeScale, scale);
        // Bucket i holds (2^(i/16), 2^((i+1)/16)]: 512 = 2^9 closes bucket 143, 513 opens the next one.
        Assert.Equal([(143, 1L), (144, 1L), (254, 1L), (255, 1L)], buckets);
        var lower = Math.Pow(2, 254 / 16.0);
        var upper = Math.Pow(2, 255 / 16.0);
        Assert.InRange(61440, lower, upper);
        Assert.True((upper - lower) / lower < 0.05, $"60 KB bucket ({lower:0}, {upper:0}]");
    }

    [Fact]
    public void Only_our_histograms_become_exponential()
    {
        using var meter = new Meter(LogFlushMetrics.MeterName);
        var duration = TelemetryService.StreamConfiguration(meter.CreateHistogram<double>("sqlserver.log.flush.duration", "s"), 2000, exponential: true);
        var flushes = TelemetryService.StreamConfiguration(meter.CreateCounter<long>("sqlserver.log.flushes"), 2000, exponential: true);
        var explicitSizes = TelemetryService.StreamConfiguration(
            meter.CreateHistogram<long>("sqlserver.log.flush.write_size", advice: new() { HistogramBucketBoundaries = [512, 1024] }), 2000, exponential: false);

        var exponential = Assert.IsType<Base2ExponentialBucketHistogramConfiguration>(duration);
        Assert.Equal(MetricCatalog.DurationScale, exponential.MaxScale);
        Assert.Equal(2000, exponential.CardinalityLimit);
        Assert.IsNotType<Base2ExponentialBucketHistogramConfiguration>(flushes);
        Assert.IsType<ExplicitBucketHistogramConfiguration>(explicitSizes);
    }

    [Fact]
    public void Exponential_with_the_prometheus_endpoint_on_is_refused_naming_both_settings()
    {
        var o = new MonitorOptions { Sources = { Simulate = { Scenario = "mixed" } } };
        o.Exporters.Otlp = new OtlpOptions { Enabled = true, Endpoint = "http://collector:4317", HistogramAggregation = "exponential" };

        var refused = Validator.Validate(null, o);
        o.Exporters.Prometheus.Enabled = false;
        var accepted = Validator.Validate(null, o);
        o.Exporters.Otlp.HistogramAggregation = "native";
        var unknown = Validator.Validate(null, o);

        Assert.True(refused.Failed);
        Assert.Contains("Exporters:Otlp:HistogramAggregation", refused.FailureMessage, StringComparison.Ordinal);
        Assert.Contains("Exporters:Prometheus:Enabled", refused.FailureMessage, StringComparison.Ordinal);
        Assert.True(accepted.Succeeded, accepted.FailureMessage);
        Assert.True(unknown.Failed);
        Assert.Contains("Use explicit or exponential", unknown.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Otlp_sends_the_write_size_as_an_exponential_histogram()
    {
        await using var receiver = await FakeOtlpReceiver.StartAsync(grpc: false);
        await using var host = await RunningHost.StartAsync(new()
        {
            ["Sources:Simulate:Scenario"] = "autocommit",
            ["Sources:Simulate:Speed"] = "10",
            ["Exporters:Prometheus:Enabled"] = "false",
            ["Exporters:Otlp:Enabled"] = "true",
            ["Exporters:Otlp:Protocol"] = "http/protobuf",
            ["Exporters:Otlp:Endpoint"] = receiver.Address.ToString(),
            ["Exporters:Otlp:Interval"] = "00:00:01",
            ["Exporters:Otlp:HistogramAggregation"] = "exponential",
        });

        // OTLP Metric: name = 1, histogram = 9, exponential_histogram = 10 (opentelemetry/proto/metrics/v1/metrics.proto).
        var arrived = await receiver.WaitForAsync(r => DataFieldOf(r.Body, "sqlserver.log.flush.write_size") is not null, TimeSpan.FromSeconds(30));

        Assert.True(arrived, "no OTLP export carried the write-size histogram");
        var body = receiver.Requests.First(r => DataFieldOf(r.Body, "sqlserver.log.flush.write_size") is not null).Body;
        Assert.Equal(10, DataFieldOf(body, "sqlserver.log.flush.write_size"));
    }

    /// <summary>
    /// The field number of the data of the OTLP Metric message named <paramref name="name"/> (9 histogram, 10 exponential
    /// histogram, ...), found by walking that message's fields from its name; null when the name is not in the body.
    /// </summary>
    private static int? DataFieldOf(byte[] body, string name)
    {
        var bytes = System.Text.Encoding.UTF8.GetBytes(name);
        byte[] nameField = [0x0A, (byte)bytes.Length, .. bytes];
        var at = body.AsSpan().IndexOf(nameField);
        if (at < 0)
        {
            return null;
        }

        var pos = at;
        while (pos < body.Length)
        {
            var tag = (int)Varint(body, ref pos);
            var field = tag >> 3;
            switch (tag & 7)
            {
                case 0:
                    Varint(body, ref pos);
                    break;
                case 1:
                    pos += 8;
                    break;
                case 5:
                    pos += 4;
                    break;
                case 2:
                    var length = (int)Varint(body, ref pos);
                    if (field is >= 5 and <= 11)
                    {
                        return field;
                    }

                    pos += length;
                    break;
                default:
                    return -1;
            }
        }

        return -1;
    }

    private static ulong Varint(byte[] b, ref int pos)
    {
        ulong value = 0;
        for (var shift = 0; ; shift += 7)
        {
            var x = b[pos++];
            value |= (ulong)(x & 0x7F) << shift;
            if (x < 0x80)
            {
                return value;
            }
        }
    }

    private sealed class ExportTo(List<Metric> into) : BaseExporter<Metric>
    {
        public override ExportResult Export(in Batch<Metric> batch)
        {
            foreach (var m in batch)
            {
                into.Add(m);
            }

            return ExportResult.Success;
        }
    }
}

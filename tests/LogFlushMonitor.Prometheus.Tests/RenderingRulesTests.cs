using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus.Tests;

public sealed class RenderingRulesTests
{
    private static MeterProvider Build(Meter meter, out PrometheusScrapeHandler handler, Action<PrometheusExporterOptions>? configure = null, Action<MeterProviderBuilder>? more = null)
    {
        var builder = Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty())
            .AddMeter(meter.Name)
            .AddPrometheusPullExporter(out handler, configure);
        more?.Invoke(builder);
        return builder.Build();
    }

    [Fact]
    public async Task Scope_labels_can_be_turned_off_and_a_meter_without_version_has_no_version_label()
    {
        using var meter = new Meter("NoVersion");
        using var provider = Build(meter, out var handler);
        meter.CreateCounter<long>("c").Add(1);
        Assert.Equal("# TYPE c_total counter\nc_total{otel_scope_name=\"NoVersion\"} 1\n", await handler.ScrapeTextAsync());

        using var meter2 = new Meter("Other", "9");
        using var provider2 = Build(meter2, out var handler2, o => o.ScopeLabelsEnabled = false);
        meter2.CreateCounter<long>("c").Add(1);
        Assert.Equal("# TYPE c_total counter\nc_total 1\n", await handler2.ScrapeTextAsync());
    }

    [Fact]
    public async Task An_empty_resource_gives_no_target_info_and_a_default_resource_gives_one()
    {
        using var meter = new Meter("Empty");
        using var provider = Build(meter, out var handler);
        Assert.Equal(string.Empty, await handler.ScrapeTextAsync());

        using var defaultProvider = Sdk.CreateMeterProviderBuilder()
            .AddPrometheusPullExporter(out var defaultHandler)
            .Build();
        var text = await defaultHandler.ScrapeTextAsync();
        Assert.StartsWith("# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info{", text);
        Assert.Contains("service_name=\"unknown_service:", text);
        Assert.Contains("telemetry_sdk_language=\"dotnet\"", text);
    }

    [Fact]
    public async Task Timestamps_are_written_in_milliseconds_when_enabled()
    {
        using var meter = new Meter("Stamped");
        using var provider = Build(meter, out var handler, o => { o.TimestampsEnabled = true; o.ScopeLabelsEnabled = false; });
        meter.CreateUpDownCounter<long>("g").Add(7);
        var before = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        var line = (await handler.ScrapeTextAsync()).Split('\n')[1];
        var after = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();

        var parts = line.Split(' ');
        Assert.Equal(["g", "7"], parts[..2]);
        Assert.InRange(long.Parse(parts[2], System.Globalization.CultureInfo.InvariantCulture), before - 1000, after);
    }

    [Fact]
    public async Task Two_streams_with_one_prometheus_name_keep_only_the_first_family()
    {
        using var meter = new Meter("Dup");
        using var provider = Build(meter, out var handler, o => o.ScopeLabelsEnabled = false);
        meter.CreateCounter<long>("a.b").Add(1);
        meter.CreateCounter<long>("a_b").Add(2);

        var text = await handler.ScrapeTextAsync();

        Assert.Equal("# TYPE a_b_total counter\na_b_total 1\n", text);
        Assert.Equal(1, handler.Exporter.DroppedDuplicateMetrics);
    }

    [Fact]
    public async Task Attribute_keys_that_sanitise_alike_are_merged_in_key_order()
    {
        using var meter = new Meter("Merge");
        using var provider = Build(meter, out var handler, o => o.ScopeLabelsEnabled = false);
        meter.CreateCounter<long>("m").Add(1, new("a_b", "second"), new("a.b", "first"), new("z", 1.5));

        Assert.Equal("# TYPE m_total counter\nm_total{a_b=\"first;second\",z=\"1.5\"} 1\n", await handler.ScrapeTextAsync());
    }

    [Fact]
    public async Task Histogram_with_negative_measurements_omits_the_sum()
    {
        using var meter = new Meter("Neg");
        using var provider = Build(meter, out var handler, o => o.ScopeLabelsEnabled = false);
        var h = meter.CreateHistogram<double>("h", null, null, null, new InstrumentAdvice<double> { HistogramBucketBoundaries = [0] });
        h.Record(-1);
        h.Record(3);

        Assert.Equal(
            "# TYPE h histogram\nh_bucket{le=\"0\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n",
            await handler.ScrapeTextAsync());
    }

    [Fact]
    public async Task Exponential_histograms_are_dropped_because_text_format_cannot_carry_them()
    {
        using var meter = new Meter("Exp");
        using var provider = Build(meter, out var handler, o => o.ScopeLabelsEnabled = false,
            b => b.AddView("e", new Base2ExponentialBucketHistogramConfiguration()));
        meter.CreateHistogram<double>("e").Record(3);
        meter.CreateCounter<long>("kept").Add(1);

        Assert.Equal("# TYPE kept_total counter\nkept_total 1\n", await handler.ScrapeTextAsync());
    }

    [Fact]
    public async Task Counter_keeps_growing_across_scrapes_because_temporality_is_cumulative()
    {
        using var meter = new Meter("Cumulative");
        using var provider = Build(meter, out var handler, o => o.ScopeLabelsEnabled = false);
        var c = meter.CreateCounter<double>("c");
        c.Add(1.5);
        Assert.EndsWith("c_total 1.5\n", await handler.ScrapeTextAsync());
        c.Add(2);
        Assert.EndsWith("c_total 3.5\n", await handler.ScrapeTextAsync());
    }

    [Fact]
    public async Task A_meter_with_scope_attributes_gets_one_otel_scope_info_line()
    {
        using var meter = new Meter(new MeterOptions("Scoped") { Version = "2.0", Tags = [new("component", "reader")] });
        using var provider = Build(meter, out var handler);
        meter.CreateCounter<long>("a").Add(1);
        meter.CreateCounter<long>("b").Add(2);

        Assert.Equal(
            "# TYPE a_total counter\na_total{otel_scope_name=\"Scoped\",otel_scope_version=\"2.0\"} 1\n"
            + "# TYPE b_total counter\nb_total{otel_scope_name=\"Scoped\",otel_scope_version=\"2.0\"} 2\n"
            + "# HELP otel_scope_info Instrumentation Scope metadata\n# TYPE otel_scope_info gauge\n"
            + "otel_scope_info{otel_scope_name=\"Scoped\",otel_scope_version=\"2.0\",component=\"reader\"} 1\n",
            await handler.ScrapeTextAsync());
    }

    [Fact]
    public async Task Non_string_attribute_values_are_stringified_per_the_attribute_specification()
    {
        using var meter = new Meter("Values");
        using var provider = Build(meter, out var handler, o => o.ScopeLabelsEnabled = false);
        meter.CreateCounter<long>("v").Add(
            1,
            new("b", false),
            new("d", -0.5),
            new("i", 42),
            new("l", long.MinValue),
            new("s", new[] { "x", "y\"z" }),
            new("n", new[] { 1, 2 }));

        Assert.Equal(
            "# TYPE v_total counter\nv_total{b=\"false\",d=\"-0.5\",i=\"42\",l=\"-9223372036854775808\",n=\"[1,2]\",s=\"[\\\"x\\\",\\\"y\\\\\\\"z\\\"]\"} 1\n",
            await handler.ScrapeTextAsync());
    }
}

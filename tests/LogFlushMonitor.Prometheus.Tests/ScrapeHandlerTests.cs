using System.Diagnostics.Metrics;
using System.Text;
using LogFlushMonitor.Prometheus.Exposition;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus.Tests;

public sealed class ScrapeHandlerTests
{
    private static MeterProvider Build(Meter meter, out PrometheusScrapeHandler handler) =>
        Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty())
            .AddMeter(meter.Name)
            .AddPrometheusPullExporter(out handler, o => o.ScopeLabelsEnabled = false)
            .Build();

    [Fact]
    public async Task Scrapes_that_arrive_while_a_collect_renders_share_its_text()
    {
        using var meter = new Meter("Shared");
        using var entered = new SemaphoreSlim(0);
        using var release = new ManualResetEventSlim();
        var calls = 0;
        meter.CreateObservableGauge("slow", () =>
        {
            var call = Interlocked.Increment(ref calls);
            entered.Release();
            if (call == 1)
            {
                release.Wait(TimeSpan.FromSeconds(20));
            }

            return call;
        });
        using var provider = Build(meter, out var handler);

        var first = handler.ScrapeTextAsync();
        Assert.True(await entered.WaitAsync(TimeSpan.FromSeconds(20)), "the first collect never started");
        var others = Enumerable.Range(0, 4).Select(_ => handler.ScrapeTextAsync()).ToArray();

        release.Set();

        // Render once, serve many: the four that came during the first collect got its text, with no collect of their own.
        var texts = await Task.WhenAll([first, .. others]);
        Assert.All(texts, t => Assert.Equal("# TYPE slow gauge\nslow 1\n", t));
        Assert.Equal(1, handler.CollectCount);
        Assert.Equal(1, calls);

        // A scrape after it ended collects anew.
        Assert.Equal("# TYPE slow gauge\nslow 2\n", await handler.ScrapeTextAsync());
        Assert.Equal(2, handler.CollectCount);
    }

    [Fact]
    public async Task A_stalled_scraper_holds_neither_the_render_nor_other_scrapes()
    {
        using var meter = new Meter("Big");
        using var provider = Build(meter, out var handler);
        AddSeries(meter, counters: 24, seriesEach: 1_500);
        var expected = await handler.ScrapeTextAsync();
        Assert.True(expected.Length > 10 * PrometheusScrapeHandler.ChunkSize, $"the text is only {expected.Length} bytes");

        // A scraper that takes the first piece and then stalls. Before, the next scrape waited for it to finish.
        var destination = new StallingStream();
        var stalled = handler.ScrapeToAsync(destination);
        for (var i = 0; i < 3; i++)
        {
            Assert.Equal(expected, await handler.ScrapeTextAsync().WaitAsync(TimeSpan.FromSeconds(10)));
        }

        Assert.False(stalled.IsCompleted);
        destination.Resume();
        Assert.Equal(Encoding.UTF8.GetByteCount(expected), await stalled);
        Assert.Equal(expected, Encoding.UTF8.GetString(destination.ToArray()));
    }

    [Fact]
    public async Task Streamed_text_is_byte_for_byte_the_text_rendered_in_one_buffer()
    {
        using var meter = new Meter("Same", "1.0");
        using var provider = Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty().AddService("same", autoGenerateServiceInstanceId: false))
            .AddMeter(meter.Name)
            .AddPrometheusPullExporter(out var handler)
            .Build();
        var histogram = meter.CreateHistogram<double>("h", "s", "Durations.", null, new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.001, 0.01, 0.1, 1] });
        for (var i = 0; i < 1_900; i++)
        {
            // Multi-byte UTF-8 and escapes, so chunk boundaries fall inside characters and escape sequences.
            histogram.Record(i / 1000.0, new KeyValuePair<string, object?>("name", $"données \"{i}\"\\ 😀 {i % 7}\n"), new("i", i));
        }

        using var whole = new Utf8TextBuffer(1 << 20);
        Assert.True(handler.Exporter.CollectInto(whole, 10_000));
        var streamed = new MemoryStream();
        await handler.ScrapeToAsync(streamed);

        Assert.True(streamed.Length > 10 * PrometheusScrapeHandler.ChunkSize);
        Assert.True(whole.WrittenSpan.SequenceEqual(streamed.ToArray()), "the streamed text differs from the text rendered in one buffer");
    }

    [Fact]
    public async Task A_scraper_that_leaves_mid_text_frees_the_turn_for_the_next_scrape()
    {
        using var meter = new Meter("Leaves");
        using var provider = Build(meter, out var handler);
        AddSeries(meter, counters: 5, seriesEach: 1_000);

        await Assert.ThrowsAsync<IOException>(() => handler.ScrapeToAsync(new FailingStream()));

        var text = await handler.ScrapeTextAsync();
        Assert.StartsWith("# TYPE c0_total counter\n", text);
        Assert.EndsWith("c4_total{series=\"series-number-999\"} 999\n", text);
        Assert.Equal(2, handler.CollectCount);
    }

    [Fact]
    public async Task A_collect_that_fails_midway_fails_the_scrape_before_anything_is_sent()
    {
        using var meter = new Meter("FailsLate");
        using var provider = Build(meter, out var handler);
        // Much good text before the bad value: the render fails well after its first chunks.
        AddSeries(meter, counters: 16, seriesEach: 1_000);
        meter.CreateCounter<long>("bad").Add(1, new KeyValuePair<string, object?>("k", new UnprintableValue()));

        var partial = new MemoryStream();
        await Assert.ThrowsAsync<InvalidOperationException>(() => handler.ScrapeToAsync(partial));

        Assert.Equal(0, partial.Length);
        Assert.Equal(0, handler.CollectCount);
    }

    [Fact]
    public async Task A_collect_that_fails_before_any_text_fails_the_scrape()
    {
        using var meter = new Meter("FailsEarly");
        using var provider = Build(meter, out var handler);
        meter.CreateCounter<long>("bad").Add(1, new KeyValuePair<string, object?>("k", new UnprintableValue()));

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => handler.ScrapeAsync());
        Assert.Contains("collect failed", error.Message, StringComparison.Ordinal);

        // The failure freed the turn: the next scrape runs (and fails the same way) instead of waiting forever.
        await Assert.ThrowsAsync<InvalidOperationException>(() => handler.ScrapeAsync()).WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Equal(0, handler.CollectCount);
    }

    [Fact]
    public async Task Scrape_after_the_provider_is_disposed_fails_with_a_clear_error()
    {
        using var meter = new Meter("Gone");
        var provider = Build(meter, out var handler);
        provider.Dispose();

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => handler.ScrapeAsync());
        Assert.Contains("disposed", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Disposed_handler_refuses_scrapes()
    {
        using var meter = new Meter("HandlerGone");
        using var provider = Build(meter, out var handler);
        handler.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => handler.ScrapeAsync());
    }

    [Fact]
    public async Task Many_parallel_scrapes_each_get_a_whole_text()
    {
        using var meter = new Meter("Parallel");
        using var provider = Build(meter, out var handler);
        var counter = meter.CreateCounter<long>("c");
        for (var i = 0; i < 1_500; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("k", "value-" + i));
        }

        async Task Worker(int seed)
        {
            var random = new Random(seed);
            for (var i = 0; i < 20; i++)
            {
                counter.Add(1 + random.Next(1000), new KeyValuePair<string, object?>("k", "value-0"));
                var text = await handler.ScrapeTextAsync();
                Assert.StartsWith("# TYPE c_total counter\nc_total{k=\"value-0\"} ", text);
                Assert.EndsWith("c_total{k=\"value-1499\"} 1\n", text);
                Assert.Equal(1_501, text.Count(c => c == '\n'));
            }
        }

        await Task.WhenAll(Enumerable.Range(0, 8).Select(Worker));

        // Each worker scrapes one after another (at least 20 collects); workers that met in a collect shared it.
        Assert.InRange(handler.CollectCount, 20, 160);
    }

    /// <summary>Counters c0, c1, ... with <paramref name="seriesEach"/> series each (below the SDK's cardinality limit of 2,000).</summary>
    private static void AddSeries(Meter meter, int counters, int seriesEach)
    {
        for (var c = 0; c < counters; c++)
        {
            var counter = meter.CreateCounter<long>("c" + c);
            for (var i = 0; i < seriesEach; i++)
            {
                counter.Add(i, new KeyValuePair<string, object?>("series", "series-number-" + i));
            }
        }
    }

    /// <summary>An attribute value whose text cannot be produced: the renderer throws on it.</summary>
    private sealed class UnprintableValue
    {
        public override string ToString() => throw new FormatException("this value has no text");
    }

    /// <summary>Accepts the first write, then holds every further write until resumed.</summary>
    private sealed class StallingStream : MemoryStream
    {
        private readonly TaskCompletionSource _resume = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _writes;

        public void Resume() => _resume.TrySetResult();

        public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            if (Interlocked.Increment(ref _writes) > 1)
            {
                await _resume.Task.WaitAsync(cancellationToken);
            }

            await base.WriteAsync(buffer, cancellationToken);
        }
    }

    /// <summary>A scraper whose connection drops after the first piece.</summary>
    private sealed class FailingStream : MemoryStream
    {
        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) =>
            Length > 0 ? ValueTask.FromException(new IOException("connection reset")) : base.WriteAsync(buffer, cancellationToken);
    }
}

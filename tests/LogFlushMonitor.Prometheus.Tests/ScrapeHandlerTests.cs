using System.Diagnostics.Metrics;
using System.Text;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace LogFlushMonitor.Prometheus.Tests;

public sealed class ScrapeHandlerTests
{
    private static MeterProvider Build(Meter meter, out PrometheusScrapeHandler handler, TimeSpan cacheFor, TimeProvider? time = null) =>
        Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(ResourceBuilder.CreateEmpty())
            .AddMeter(meter.Name)
            .AddPrometheusPullExporter(out handler, o => { o.ScrapeResponseCacheDuration = cacheFor; o.ScopeLabelsEnabled = false; }, time)
            .Build();

    [Fact]
    public async Task Concurrent_scrapes_during_a_collect_share_that_collect()
    {
        using var meter = new Meter("Shared");
        using var entered = new SemaphoreSlim(0);
        using var release = new ManualResetEventSlim();
        var calls = 0;
        meter.CreateObservableGauge("slow", () =>
        {
            Interlocked.Increment(ref calls);
            entered.Release();
            release.Wait(TimeSpan.FromSeconds(10));
            return 42;
        });
        using var provider = Build(meter, out var handler, TimeSpan.Zero);

        var first = handler.ScrapeAsync();
        Assert.True(await entered.WaitAsync(TimeSpan.FromSeconds(10)), "the collect never started");
        var others = Enumerable.Range(0, 4).Select(_ => handler.ScrapeAsync()).ToArray();
        release.Set();

        var leases = await Task.WhenAll([first, .. others]);
        try
        {
            Assert.Equal(1, handler.CollectCount);
            Assert.Equal(1, calls);
            Assert.All(leases, l => Assert.Equal("# TYPE slow gauge\nslow 42\n", Encoding.UTF8.GetString(l.Content.Span)));
        }
        finally
        {
            foreach (var lease in leases)
            {
                lease.Dispose();
            }
        }
    }

    [Fact]
    public async Task A_result_younger_than_the_cache_duration_is_reused_and_an_older_one_is_not()
    {
        using var meter = new Meter("Cached");
        var time = new ManualTimeProvider();
        using var provider = Build(meter, out var handler, TimeSpan.FromSeconds(1), time);
        var counter = meter.CreateCounter<long>("c");
        counter.Add(1);

        using (var first = await handler.ScrapeAsync())
        {
            Assert.False(first.FromCache);
        }

        counter.Add(1);
        time.Advance(TimeSpan.FromMilliseconds(999));
        using (var cached = await handler.ScrapeAsync())
        {
            Assert.True(cached.FromCache);
            Assert.EndsWith("c_total 1\n", Encoding.UTF8.GetString(cached.Content.Span));
        }

        time.Advance(TimeSpan.FromMilliseconds(1));
        using (var fresh = await handler.ScrapeAsync())
        {
            Assert.False(fresh.FromCache);
            Assert.EndsWith("c_total 2\n", Encoding.UTF8.GetString(fresh.Content.Span));
        }

        Assert.Equal(2, handler.CollectCount);
    }

    [Fact]
    public async Task A_lease_keeps_its_text_after_a_newer_collect_replaced_it()
    {
        using var meter = new Meter("Lease");
        using var provider = Build(meter, out var handler, TimeSpan.Zero);
        var counter = meter.CreateCounter<long>("c");
        counter.Add(1);

        using var old = await handler.ScrapeAsync();
        var oldText = Encoding.UTF8.GetString(old.Content.Span);
        for (var i = 0; i < 20; i++)
        {
            counter.Add(1000);
            using var newer = await handler.ScrapeAsync();
            Assert.NotEqual(oldText, Encoding.UTF8.GetString(newer.Content.Span));
        }

        Assert.Equal(oldText, Encoding.UTF8.GetString(old.Content.Span));
        Assert.Equal("# TYPE c_total counter\nc_total 1\n", oldText);
    }

    [Fact]
    public async Task Scrape_after_the_provider_is_disposed_fails_with_a_clear_error()
    {
        using var meter = new Meter("Gone");
        var provider = Build(meter, out var handler, TimeSpan.Zero);
        provider.Dispose();

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => handler.ScrapeAsync());
        Assert.Contains("disposed", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Disposed_handler_refuses_scrapes()
    {
        using var meter = new Meter("HandlerGone");
        using var provider = Build(meter, out var handler, TimeSpan.FromSeconds(1));
        handler.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => handler.ScrapeAsync());
    }

    [Fact]
    public async Task Leases_held_across_many_parallel_scrapes_never_see_their_text_change()
    {
        using var meter = new Meter("Parallel");
        using var provider = Build(meter, out var handler, TimeSpan.Zero);
        var counter = meter.CreateCounter<long>("c");

        async Task Worker(int seed)
        {
            var random = new Random(seed);
            for (var i = 0; i < 50; i++)
            {
                counter.Add(1 + random.Next(1000));
                using var lease = await handler.ScrapeAsync();
                var before = Encoding.UTF8.GetString(lease.Content.Span);
                await Task.Delay(random.Next(2));
                Assert.Equal(before, Encoding.UTF8.GetString(lease.Content.Span));
                Assert.StartsWith("# TYPE c_total counter\nc_total ", before);
                Assert.EndsWith("\n", before);
            }
        }

        await Task.WhenAll(Enumerable.Range(0, 8).Select(Worker));
        Assert.InRange(handler.CollectCount, 1, 400);
    }
}

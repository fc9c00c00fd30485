using System.Diagnostics;

namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>Waits until a condition holds, polling, with a generous deadline (never a fixed sleep).</summary>
internal static class Eventually
{
    public static async Task TrueAsync(Func<bool> condition, string failure, TimeSpan? timeout = null)
    {
        var deadline = timeout ?? TimeSpan.FromSeconds(20);
        var watch = Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(watch.Elapsed < deadline, $"{failure} (waited {deadline.TotalSeconds:0} s)");
            await Task.Delay(5);
        }
    }
}

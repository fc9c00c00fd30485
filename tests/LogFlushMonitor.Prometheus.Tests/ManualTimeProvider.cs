namespace LogFlushMonitor.Prometheus.Tests;

/// <summary>A clock the test moves by hand (Microsoft.Extensions.TimeProvider.Testing is not served here).</summary>
internal sealed class ManualTimeProvider : TimeProvider
{
    private DateTimeOffset _now = new(2026, 11, 22, 12, 0, 0, TimeSpan.Zero);

    public override DateTimeOffset GetUtcNow() => _now;

    public void Advance(TimeSpan by) => _now += by;
}

using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace LogFlushMonitor.Hosting;

/// <summary>/readyz as an ASP.NET Core health check: healthy when <see cref="Readiness"/> says ready, with its JSON report as the description.</summary>
internal sealed class ReadinessHealthCheck(Readiness readiness) : IHealthCheck
{
    /// <summary>The check's registration name.</summary>
    public const string Name = "readiness";

    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        var (ready, report) = readiness.Check();
        return Task.FromResult(ready ? HealthCheckResult.Healthy(report) : HealthCheckResult.Unhealthy(report));
    }
}

namespace LogFlushMonitor.Hosting;

/// <summary>The components that hold /readyz back until they run, as /readyz names them: one place for the names.</summary>
internal static class ReadinessComponents
{
    /// <summary>The pipeline's consumer.</summary>
    public const string Pipeline = "pipeline";

    /// <summary>The simulated workload (Sources:Simulate).</summary>
    public const string SimulateSource = "source:simulate";

    /// <summary>The NDJSON replay (Sources:Replay).</summary>
    public const string ReplaySource = "source:replay";

    /// <summary>The SQL Server instances (Sources:SqlServer).</summary>
    public const string SqlServerSource = LogFlushMonitor.SqlServer.Fleet.SqlServerFleet.ReadinessComponent;
}

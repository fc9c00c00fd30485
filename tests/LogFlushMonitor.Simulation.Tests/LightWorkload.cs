namespace LogFlushMonitor.Simulation.Tests;

/// <summary>
/// The scenarios at 2 % of the articles' per-session rates: every shape, poll, restart and drop happens at the same
/// virtual times, with a fiftieth of the events. For tests that check how samples relate, not how many there are.
/// </summary>
internal static class LightWorkload
{
    public static SimulationOptions Options { get; } = new() { RateScale = 0.02 };
}

namespace LogFlushMonitor.Simulation;

/// <summary>
/// Settings of a simulated workload. Every scenario reads the same options; the defaults reproduce the
/// articles' shapes at their published rates.
/// </summary>
public sealed record SimulationOptions
{
    /// <summary>Seed of every random choice: the same seed, options and calls give the same samples.</summary>
    public int Seed { get; init; } = 1;

    /// <summary>Interval between simulated DMV polls (counters, wait stats, file stats). Default 5 s.</summary>
    public TimeSpan PollInterval { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Virtual-time step the generator advances by. Default 10 ms.</summary>
    public TimeSpan Step { get; init; } = TimeSpan.FromMilliseconds(10);

    /// <summary>Sessions per database, overriding each scenario's own choice when set.</summary>
    public int? SessionsPerDatabase { get; init; }

    /// <summary>
    /// Multiplies every per-session rate (5,000 commits/s for autocommit and delayed durability, about 15 MB/s of
    /// log for a big transaction). Autocommit stays bounded by the log write latency as on a real server.
    /// </summary>
    public double RateScale { get; init; } = 1.0;

    /// <summary>
    /// Fraction of events (0 to below 1) lost between the simulated server and the consumer: each lost event
    /// still takes its event_sequence number, so the gap shows. Counters still count them.
    /// </summary>
    public double EventLossRate { get; init; }

    /// <summary>
    /// How often the simulated instances answer Query Store (log bytes by statement). Default 1 minute: shorter than the
    /// monitor's 5 so that a short simulation shows statements; the first answer of each database is its baseline.
    /// </summary>
    public TimeSpan QueryStoreInterval { get; init; } = TimeSpan.FromMinutes(1);

    /// <summary>Whether the simulated Query Store gives the statements' text (Sources:SqlServer:StatementText).</summary>
    public bool StatementText { get; init; } = true;

    /// <summary>Emit log_flush_complete events for the databases the scenario chose; false emits none.</summary>
    public bool FlushCompleteEvents { get; init; } = true;

    /// <summary>Throws <see cref="ArgumentException"/> naming the first invalid setting.</summary>
    public void Validate()
    {
        if (PollInterval <= TimeSpan.Zero)
        {
            throw new ArgumentException($"PollInterval must be positive (was {PollInterval}).", nameof(PollInterval));
        }

        if (Step <= TimeSpan.Zero || Step > PollInterval)
        {
            throw new ArgumentException($"Step must be positive and at most PollInterval (was {Step}).", nameof(Step));
        }

        if (QueryStoreInterval <= TimeSpan.Zero)
        {
            throw new ArgumentException($"QueryStoreInterval must be positive (was {QueryStoreInterval}).", nameof(QueryStoreInterval));
        }

        if (SessionsPerDatabase is < 1 or > 1000)
        {
            throw new ArgumentException($"SessionsPerDatabase must be between 1 and 1000 (was {SessionsPerDatabase}).", nameof(SessionsPerDatabase));
        }

        if (!(RateScale > 0) || RateScale > 100)
        {
            throw new ArgumentException($"RateScale must be above 0 and at most 100 (was {RateScale}).", nameof(RateScale));
        }

        if (!(EventLossRate >= 0) || EventLossRate >= 1)
        {
            throw new ArgumentException($"EventLossRate must be in [0, 1) (was {EventLossRate}).", nameof(EventLossRate));
        }
    }
}

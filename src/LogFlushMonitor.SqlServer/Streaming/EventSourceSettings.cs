namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>
/// Tuning of an instance's event source (stream, reconnects, fallback, histogram). Defaults suit production; the
/// service takes every value from Sources:SqlServer through <see cref="For"/>.
/// </summary>
public sealed record EventSourceSettings
{
    /// <summary>First wait before reconnecting; doubles (jittered) up to <see cref="MaxReconnectDelay"/>.</summary>
    public TimeSpan ReconnectDelay { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>Longest wait between reconnection attempts.</summary>
    public TimeSpan MaxReconnectDelay { get; init; } = TimeSpan.FromMinutes(2);

    /// <summary>Disconnections for slowness (25726) within <see cref="FallbackWindow"/> that switch an Auto instance to histogram mode.</summary>
    public int FallbackErrorCount { get; init; } = 3;

    /// <summary>The window of <see cref="FallbackErrorCount"/>.</summary>
    public TimeSpan FallbackWindow { get; init; } = TimeSpan.FromMinutes(10);

    /// <summary>How often histogram targets are read (the instance's poll interval).</summary>
    public TimeSpan HistogramPollInterval { get; init; } = TimeSpan.FromSeconds(15);

    /// <summary>Slots of each histogram target (write sizes are multiples of 512 up to 60 KB: 120 values at most).</summary>
    public int HistogramSlots { get; init; } = 256;

    /// <summary>Most per-database histogram sessions; more watched databases share one instance-wide session, "(all)".</summary>
    public int MaxHistogramSessions { get; init; } = 8;

    /// <summary>Largest live-stream buffer accepted.</summary>
    public int MaxBufferBytes { get; init; } = 64 << 20;

    /// <summary>
    /// How long a live-stream request may wait for the server's first answer before the stream counts as working (an
    /// idle instance sends no event; a refused request fails at once).
    /// </summary>
    public TimeSpan StreamOpenedAfter { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Timeout of catalog queries, DDL and histogram reads, in seconds.</summary>
    public int CommandTimeoutSeconds { get; init; } = 30;

    /// <summary>Timeout of opening a connection (stream, histogram and shutdown cleanup).</summary>
    public TimeSpan ConnectTimeout { get; init; } = TimeSpan.FromSeconds(15);

    /// <summary>How long stopping or dropping sessions at shutdown may take.</summary>
    public TimeSpan ShutdownTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>The settings of <paramref name="instance"/> as configured in <paramref name="fleet"/> (Sources:SqlServer).</summary>
    public static EventSourceSettings For(SqlServerSourceOptions fleet, SqlServerInstanceOptions instance)
    {
        ArgumentNullException.ThrowIfNull(fleet);
        ArgumentNullException.ThrowIfNull(instance);
        return new EventSourceSettings
        {
            ReconnectDelay = fleet.ReconnectDelay,
            MaxReconnectDelay = fleet.MaxReconnectDelay,
            FallbackErrorCount = fleet.FallbackErrorCount,
            FallbackWindow = fleet.FallbackWindow,
            HistogramPollInterval = instance.PollInterval ?? fleet.PollInterval,
            HistogramSlots = fleet.HistogramSlots,
            MaxHistogramSessions = fleet.MaxHistogramSessions,
            MaxBufferBytes = fleet.MaxStreamBufferBytes,
            CommandTimeoutSeconds = Math.Max(1, (int)Math.Ceiling(fleet.CommandTimeout.TotalSeconds)),
            ConnectTimeout = fleet.ConnectTimeout,
            ShutdownTimeout = fleet.ShutdownTimeout,
        };
    }
}

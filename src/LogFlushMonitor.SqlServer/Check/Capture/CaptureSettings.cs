namespace LogFlushMonitor.SqlServer.Check.Capture;

/// <summary>What <c>check --capture</c> records and for how long.</summary>
public sealed record CaptureSettings
{
    /// <summary>Time between the two polls of counters, wait stats and file stats (15 s, the default poll interval).</summary>
    public TimeSpan PollGap { get; init; } = TimeSpan.FromSeconds(15);

    /// <summary>How long the live stream of the temporary session is read.</summary>
    public TimeSpan StreamTime { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// At most this many bytes of stream rows per instance (a busy server sends megabytes a second): the rows past it
    /// are counted in the manifest, not kept.
    /// </summary>
    public long MaxStreamBytes { get; init; } = 32L << 20;

    /// <summary>Replace user database names (and instance names) by db1, db2, ... (instance1, ...) in every entry.</summary>
    public bool Anonymize { get; init; }

    /// <summary>The program and version line written into the manifest.</summary>
    public string ToolVersion { get; init; } = "logflushmonitor";
}

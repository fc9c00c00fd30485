namespace LogFlushMonitor.Core.Health;

/// <summary>
/// The parts of a source that report to <see cref="SourceHealth"/>: the values of the exported <c>component</c>
/// attribute (docs/metrics.md), named once.
/// </summary>
public static class SourceComponents
{
    /// <summary>The DMV pollers of an instance.</summary>
    public const string Poller = "poller";

    /// <summary>The live event stream.</summary>
    public const string Stream = "stream";

    /// <summary>Event session checks and DDL.</summary>
    public const string Session = "session";

    /// <summary>Histogram-mode polls of the server-side histogram targets.</summary>
    public const string Histogram = "histogram";
}

/// <summary>The values of the exported <c>mode</c> attribute (sqlserver.monitor.collection.mode).</summary>
public static class CollectionModes
{
    /// <summary>Events streamed live.</summary>
    public const string Stream = "stream";

    /// <summary>Server-side histogram targets polled.</summary>
    public const string Histogram = "histogram";
}

namespace LogFlushMonitor.Core.Samples;

/// <summary>Which event an <see cref="EventSample"/> holds.</summary>
public enum EventSampleKind : byte
{
    /// <summary>A log flush.</summary>
    Flush,

    /// <summary>A wait.</summary>
    Wait,
}

/// <summary>
/// A high-rate event as it travels through the pipeline's bounded channel: one struct for both kinds, so
/// nothing is boxed or allocated per event.
/// </summary>
public readonly struct EventSample
{
    private EventSample(EventSampleKind kind, LogFlushEvent flush, WaitEvent wait)
    {
        Kind = kind;
        Flush = flush;
        Wait = wait;
    }

    /// <summary>Which of <see cref="Flush"/> and <see cref="Wait"/> is set.</summary>
    public EventSampleKind Kind { get; }

    /// <summary>The flush, when <see cref="Kind"/> is Flush.</summary>
    public LogFlushEvent Flush { get; }

    /// <summary>The wait, when <see cref="Kind"/> is Wait.</summary>
    public WaitEvent Wait { get; }

    /// <summary>The instance the event came from.</summary>
    public string Instance => Kind == EventSampleKind.Flush ? Flush.Instance : Wait.Instance;

    /// <summary>Wraps a flush.</summary>
    public static EventSample Of(in LogFlushEvent flush) => new(EventSampleKind.Flush, flush, default);

    /// <summary>Wraps a wait.</summary>
    public static EventSample Of(in WaitEvent wait) => new(EventSampleKind.Wait, default, wait);
}

/// <summary>Names of <see cref="LossKind"/> values as exported.</summary>
public static class LossKindNames
{
    /// <summary>The exported name of a loss kind.</summary>
    public static string Of(LossKind kind) => kind switch
    {
        LossKind.SequenceGap => "sequence_gap",
        LossKind.ChannelFull => "channel_full",
        LossKind.ServerDropped => "server_dropped",
        LossKind.Malformed => "malformed",
        _ => "unknown",
    };
}

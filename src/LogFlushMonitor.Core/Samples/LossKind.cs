namespace LogFlushMonitor.Core.Samples;

/// <summary>Why events or samples were lost before they reached the aggregation.</summary>
public enum LossKind
{
    /// <summary>Gaps in package0.event_sequence.</summary>
    SequenceGap,

    /// <summary>The pipeline's bounded channel was full.</summary>
    ChannelFull,

    /// <summary>The server reported dropped events (sys.dm_xe_sessions).</summary>
    ServerDropped,

    /// <summary>An input line or record could not be parsed.</summary>
    Malformed,
}

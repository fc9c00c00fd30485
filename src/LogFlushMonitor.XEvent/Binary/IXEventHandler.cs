using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// Receives decoded events (push API). Resolve handles in <see cref="OnMetadataChanged"/> (once per metadata
/// buffer), then compare and read them per event in <see cref="OnEvent"/> without allocating.
/// Implement it on a struct and pass it by ref to avoid interface dispatch.
/// </summary>
public interface IXEventHandler
{
    /// <summary>Called after a metadata buffer was merged (also after a stream/file header reset it).</summary>
    void OnMetadataChanged(XEventMetadata metadata);

    /// <summary>Called for each event; the record is valid only during the call.</summary>
    void OnEvent(in XEventRecord record);
}

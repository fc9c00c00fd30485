using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Recording;

/// <summary>
/// The values of one parsed NDJSON line, each under the name of its field, reused line after line (nothing large is
/// copied per line). Only the fields of the line's <see cref="Type"/> are meaningful.
/// </summary>
internal sealed class NdjsonRecord
{
    public NdjsonRecordType Type;

    /// <summary>The fields the line had.</summary>
    public NdjsonField Present;

    public DateTime Time;

    public string? Instance;

    public string? Database;

    public string? WaitType;

    /// <summary>The kind of a loss line.</summary>
    public string? Kind;

    public int DatabaseId;

    public uint WriteSize;

    public ulong LogBlockId;

    public long Sequence;

    public long DurationTicks;

    /// <summary>The count of a loss line.</summary>
    public long Count;

    /// <summary>A wait's client_app_name (opt).</summary>
    public string? App;

    /// <summary>A signal's line: its row, or the end of its poll, as the signal's contract read it.</summary>
    public SignalBatch? Batch;

    /// <summary>Forgets the previous line; optional fields fall back to their defaults.</summary>
    /// <summary>A copy to hold while the parser reads on (a line whose time is being judged).</summary>
    public NdjsonRecord Copy() => (NdjsonRecord)MemberwiseClone();

    public void Clear()
    {
        Type = NdjsonRecordType.None;
        Present = NdjsonField.None;
        Instance = Database = WaitType = Kind = App = null;
        Batch = null;
        LogBlockId = 0;
        Sequence = 0;
        WriteSize = 0;
    }

    /// <summary>Marks <paramref name="field"/> as present; returns null (no error) for the readers' convenience.</summary>
    public string? Mark(NdjsonField field)
    {
        Present |= field;
        return null;
    }

    /// <summary>Delivers the sample this (valid) line holds, its times shifted by <paramref name="shiftTicks"/>.</summary>
    public void Deliver(ISampleSink sink, long shiftTicks)
    {
        var t = (Present & NdjsonField.T) != 0 ? Time.AddTicks(shiftTicks) : default;
        var instance = Instance!;
        switch (Type)
        {
            case NdjsonRecordType.Flush:
            case NdjsonRecordType.FlushComplete:
                TimeSpan? duration = Type == NdjsonRecordType.FlushComplete ? TimeSpan.FromTicks(DurationTicks) : null;
                sink.OnLogFlush(new LogFlushEvent(instance, DatabaseId, Database, WriteSize, LogBlockId, t, duration, Sequence));
                break;
            case NdjsonRecordType.Wait:
                sink.OnWait(new WaitEvent(instance, WaitType!, TimeSpan.FromTicks(DurationTicks), DatabaseId, Database, t, Sequence, App));
                break;
            case NdjsonRecordType.Loss:
                sink.OnSourceLoss(instance, NdjsonSchema.LossKindOf(Kind!)!.Value, Count);
                break;
            case NdjsonRecordType.Signal:
                sink.OnBatch(shiftTicks == 0 ? Batch! : Batch!.Shifted(shiftTicks));
                break;
        }
    }
}

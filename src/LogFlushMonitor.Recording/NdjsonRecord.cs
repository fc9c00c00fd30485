using LogFlushMonitor.Core.Samples;

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

    public DateTime StartTime;

    public string? Instance;

    public string? Database;

    public string? WaitType;

    public string? CounterObject;

    public string? CounterName;

    public string? CounterInstance;

    /// <summary>The kind of a poll_completed or loss line.</summary>
    public string? Kind;

    public int DatabaseId;

    public int CounterType;

    public int FileId;

    public uint WriteSize;

    public ulong LogBlockId;

    public long Sequence;

    public long DurationTicks;

    public long CounterValue;

    public long CounterBase;

    public long WaitingTasks;

    public long WaitTimeMs;

    public long MaxWaitTimeMs;

    public long SignalWaitTimeMs;

    public long NumWrites;

    public long BytesWritten;

    public long IoStallWriteMs;

    /// <summary>The count of a loss or flush_bucket line.</summary>
    public long Count;

    /// <summary>Sessions waiting on WRITELOG (writelog_waiting).</summary>
    public long Sessions;

    /// <summary>Their longest current wait in milliseconds (writelog_waiting).</summary>
    public long LongestWaitMs;

    /// <summary>A wait's client_app_name (opt) or a log_writers line's application.</summary>
    public string? App;

    /// <summary>Open transactions of a log_writers line.</summary>
    public long Transactions;

    /// <summary>Log bytes used by a log_writers line's transactions.</summary>
    public long LogBytesUsed;

    /// <summary>Log bytes reserved by a log_writers line's transactions.</summary>
    public long LogBytesReserved;

    /// <summary>The availability group of a hadr_replica line.</summary>
    public string? AvailabilityGroup;

    /// <summary>The replica server of a hadr_replica line.</summary>
    public string? Replica;

    /// <summary>The replica's role (hadr_replica).</summary>
    public string? Role;

    /// <summary>The replica's availability mode (hadr_replica).</summary>
    public string? AvailabilityMode;

    /// <summary>The database's synchronization state on the replica (hadr_replica, opt).</summary>
    public string? SynchronizationState;

    /// <summary>The hadr_replica figures; null when the line has none (the server reported NULL).</summary>
    public long? LogSendQueueKb, LogSendRateKbPerSecond, RedoQueueKb, RedoRateKbPerSecond, SecondaryLagSeconds, LastHardenedAgeSeconds;

    /// <summary>Forgets the previous line; optional fields fall back to their defaults.</summary>
    public void Clear()
    {
        Type = NdjsonRecordType.None;
        Present = NdjsonField.None;
        Instance = Database = WaitType = CounterObject = CounterName = CounterInstance = Kind = null;
        App = AvailabilityGroup = Replica = Role = AvailabilityMode = SynchronizationState = null;
        LogSendQueueKb = LogSendRateKbPerSecond = RedoQueueKb = RedoRateKbPerSecond = SecondaryLagSeconds = LastHardenedAgeSeconds = null;
        LogBlockId = 0;
        Sequence = 0;
        CounterBase = 0;
        MaxWaitTimeMs = SignalWaitTimeMs = 0;
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
            case NdjsonRecordType.Counter:
                sink.OnCounter(new CounterSample(instance, t, CounterObject!, CounterName!, CounterInstance!, CounterValue, CounterType, CounterBase));
                break;
            case NdjsonRecordType.WaitStats:
                sink.OnWaitStats(new WaitStatsSample(instance, t, WaitType!, WaitingTasks, WaitTimeMs, MaxWaitTimeMs, SignalWaitTimeMs));
                break;
            case NdjsonRecordType.FileStats:
                sink.OnFileStats(new FileStatsSample(instance, t, DatabaseId, Database!, FileId, NumWrites, BytesWritten, IoStallWriteMs));
                break;
            case NdjsonRecordType.ServerStart:
                sink.OnServerStart(new ServerStartSample(instance, t, StartTime.AddTicks(shiftTicks)));
                break;
            case NdjsonRecordType.PollCompleted:
                sink.OnPollCompleted(new PollCompleted(instance, t, NdjsonSchema.PollKindOf(Kind!)!.Value));
                break;
            case NdjsonRecordType.Loss:
                sink.OnSourceLoss(instance, NdjsonSchema.LossKindOf(Kind!)!.Value, Count);
                break;
            case NdjsonRecordType.DatabaseName:
                sink.OnDatabaseName(new DatabaseNameSample(instance, t, DatabaseId, Database!));
                break;
            case NdjsonRecordType.FlushBucket:
                sink.OnFlushBucket(new FlushBucketSample(instance, t, DatabaseId, Database, WriteSize, Count));
                break;
            case NdjsonRecordType.WriteLogWaiting:
                sink.OnWriteLogWaiters(new WriteLogWaitersSample(instance, t, DatabaseId, Database!, (int)Sessions, LongestWaitMs));
                break;
            case NdjsonRecordType.LogWriters:
                sink.OnLogWriters(new LogWritersSample(instance, t, DatabaseId, Database!, App!, (int)Transactions, LogBytesUsed, LogBytesReserved));
                break;
            case NdjsonRecordType.HadrReplica:
                sink.OnHadrReplica(new HadrReplicaSample(
                    instance, t, DatabaseId, Database!, AvailabilityGroup!, Replica!, Role!, AvailabilityMode!, SynchronizationState,
                    LogSendQueueKb, LogSendRateKbPerSecond, RedoQueueKb, RedoRateKbPerSecond, SecondaryLagSeconds, LastHardenedAgeSeconds));
                break;
        }
    }
}

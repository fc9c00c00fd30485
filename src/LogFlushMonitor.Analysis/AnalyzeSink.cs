using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// The event sink of an NDJSON recording (the HTML report's other input): counts what each file holds (flushes,
/// WRITELOG waits, other waits, losses) and adds flushes and WRITELOG waits to the same <see cref="LogFlushTally"/> as
/// a .xel file's. Other wait types are counted, not aggregated, so a database that only had unrelated waits does not
/// show up with an empty histogram. A database id out of range is counted as malformed, not aggregated.
/// </summary>
/// <remarks>
/// One reading thread. Per event it allocates nothing; with a <see cref="TimeSeriesRecorder"/> (the HTML report)
/// flushes and WRITELOG waits are also counted per time bucket.
/// </remarks>
internal sealed class AnalyzeSink(LogFlushTally tally, TimeSeriesRecorder? series = null) : IEventSink
{
    /// <summary>The part of the events' time that counts (compare's windows).</summary>
    public TimeWindow Window { get; init; } = TimeWindow.All;

    /// <summary>The wait type whose events the report is about.</summary>
    public const string WriteLog = "WRITELOG";

    private readonly LogFlushTally _tally = tally;
    private readonly TimeSeriesRecorder? _series = series;

    /// <summary>log_flush_start events of the current file.</summary>
    public long FlushStarts { get; private set; }

    /// <summary>log_flush_complete events of the current file.</summary>
    public long FlushCompletes { get; private set; }

    /// <summary>WRITELOG waits of the current file.</summary>
    public long WriteLogWaits { get; private set; }

    /// <summary>Events lost seen in the current file.</summary>
    public long Lost { get; private set; }

    /// <summary>Events with a database id out of range in the current file.</summary>
    public long Malformed { get; private set; }

    /// <summary>Completed waits of other types in the current file, by wait type.</summary>
    public Dictionary<string, long> OtherWaits { get; } = new(StringComparer.Ordinal);

    /// <summary>Starts counting a new file.</summary>
    public void BeginFile()
    {
        FlushStarts = FlushCompletes = WriteLogWaits = Lost = Malformed = 0;
        OtherWaits.Clear();
    }

    /// <inheritdoc />
    public void OnLogFlush(in LogFlushEvent flush)
    {
        if (!Window.Contains(flush.TimestampUtc.Ticks))
        {
            return;
        }

        if (Database(flush.Instance, flush.DatabaseId, flush.DatabaseName) is not { } db)
        {
            return;
        }

        db.Touch(flush.TimestampUtc.Ticks);
        if (flush.Duration is { } d)
        {
            FlushCompletes++;
            db.FlushDurations.AddTicks(d.Ticks);
        }
        else
        {
            FlushStarts++;
            db.Sizes.Add(flush.WriteSize);
            _series?.Flush(flush.Instance, flush.DatabaseId, flush.TimestampUtc);
        }
    }

    /// <inheritdoc />
    public void OnWait(in WaitEvent wait)
    {
        if (!Window.Contains(wait.TimestampUtc.Ticks))
        {
            return;
        }

        if (!(ReferenceEquals(wait.WaitType, WriteLog) || wait.WaitType == WriteLog))
        {
            OtherWaits[wait.WaitType] = OtherWaits.GetValueOrDefault(wait.WaitType) + 1;

            // The commit budget's other parts (HADR_SYNC_COMMIT, LOGBUFFER, the log-rate governor's forms) per database.
            if (Core.Aggregation.CommitParts.OfWaitType(wait.WaitType) is { } part && (uint)wait.DatabaseId <= LogFlushTally.MaxDatabaseId)
            {
                _tally.Instance(wait.Instance).Database(wait.DatabaseId).AddCommitPart(part, wait.Duration.Ticks);
            }

            return;
        }

        if (Database(wait.Instance, wait.DatabaseId, wait.DatabaseName) is not { } db)
        {
            return;
        }

        WriteLogWaits++;
        db.Touch(wait.TimestampUtc.Ticks);
        db.AddWriteLog(wait.TimestampUtc.Ticks, wait.Duration.Ticks, wait.ClientApp, wait.QueryHash);
        _series?.WriteLog(wait.Instance, wait.DatabaseId, wait.TimestampUtc, wait.Duration, wait.ClientApp);
    }

    /// <inheritdoc />
    /// <remarks>The sum stops at <see cref="long.MaxValue"/>: no count a recording holds makes it negative.</remarks>
    public void OnSourceLoss(string instance, LossKind kind, long count) => Lost = Saturating.Add(Lost, count);

    private DatabaseTally? Database(string instance, int databaseId, string? name)
    {
        if ((uint)databaseId > LogFlushTally.MaxDatabaseId)
        {
            Malformed++;
            return null;
        }

        var db = _tally.Instance(instance).Database(databaseId);
        if (name is not null && !ReferenceEquals(name, db.Name))
        {
            db.SetName(name);
        }

        return db;
    }
}

using System.Text.Json;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Recording;

/// <summary>
/// What each event and loss line requires and how its names read (the format is documented on
/// <see cref="NdjsonSampleWriter"/> and in docs/analyze.md): the checks a parsed line passes before it is delivered. A
/// signal's lines are checked by the signal's own recording (<see cref="SignalRecording"/>).
/// </summary>
internal static class NdjsonSchema
{
    /// <summary>
    /// Times outside this window are damage, not recordings (Extended Events exist since 2008): a line at 9999-12-31
    /// would overflow the rebase to now and stall a paced replay for millennia.
    /// </summary>
    public static readonly DateTime EarliestTime = RecordedTimes.Earliest;

    /// <summary>The end (exclusive) of the window of plausible times.</summary>
    public static readonly DateTime LatestTime = RecordedTimes.Latest;

    /// <summary>Null when <paramref name="record"/> is a valid sample of its type, otherwise what is wrong.</summary>
    public static string? Validate(NdjsonRecord record)
    {
        var (required, names) = Required(record.Type);
        var missing = required & ~record.Present;
        if (missing != NdjsonField.None)
        {
            return $"missing field(s) for type {TypeName(record.Type)}: {Names(missing)} (required: {names})";
        }

        if ((record.Present & NdjsonField.DbId) != 0 && !DatabaseIds.IsValid(record.DatabaseId))
        {
            return $"invalid field 'db_id': {record.DatabaseId} is not a database id (0 to {DatabaseIds.Max})";
        }

        if ((record.Present & NdjsonField.T) != 0 && !RecordedTimes.IsPlausible(record.Time))
        {
            return $"invalid field 't': {record.Time:O} is outside {EarliestTime:yyyy-MM-dd} to {LatestTime:yyyy-MM-dd}";
        }

        if (record.Type == NdjsonRecordType.Loss && LossKindOf(record.Kind!) is null)
        {
            return $"invalid field 'kind': '{record.Kind}' is not sequence_gap, channel_full, server_dropped or malformed";
        }

        return null;
    }

    /// <summary>The event or loss type a <c>type</c> string value names, <see cref="NdjsonRecordType.None"/> when it is none of them.</summary>
    public static NdjsonRecordType TypeOf(ref Utf8JsonReader reader) =>
        reader.ValueTextEquals("flush"u8) ? NdjsonRecordType.Flush
        : reader.ValueTextEquals("wait"u8) ? NdjsonRecordType.Wait
        : reader.ValueTextEquals("flush_complete"u8) ? NdjsonRecordType.FlushComplete
        : reader.ValueTextEquals("loss"u8) ? NdjsonRecordType.Loss
        : NdjsonRecordType.None;

    public static LossKind? LossKindOf(string kind) => kind switch
    {
        "sequence_gap" => LossKind.SequenceGap,
        "channel_full" => LossKind.ChannelFull,
        "server_dropped" => LossKind.ServerDropped,
        "malformed" => LossKind.Malformed,
        _ => null,
    };

    private static (NdjsonField Required, string Names) Required(NdjsonRecordType type) => type switch
    {
        NdjsonRecordType.Flush => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.WriteSize, "t, instance, db_id, write_size"),
        NdjsonRecordType.FlushComplete => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.Duration, "t, instance, db_id, duration_us"),
        NdjsonRecordType.Wait => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.WaitType | NdjsonField.Duration, "t, instance, db_id, wait_type, duration_us"),
        _ => (NdjsonField.Instance | NdjsonField.Kind | NdjsonField.Count, "instance, kind, count"),
    };

    private static string TypeName(NdjsonRecordType type) => type switch
    {
        NdjsonRecordType.Flush => "flush",
        NdjsonRecordType.FlushComplete => "flush_complete",
        NdjsonRecordType.Wait => "wait",
        _ => "loss",
    };

    private static string Names(NdjsonField missing)
    {
        var names = new List<string>();
        foreach (var f in Enum.GetValues<NdjsonField>())
        {
            if (f != NdjsonField.None && (missing & f) != 0)
            {
                names.Add(f switch
                {
                    NdjsonField.DbId => "db_id",
                    NdjsonField.WriteSize => "write_size",
                    NdjsonField.Duration => "duration_us",
                    NdjsonField.WaitType => "wait_type",
                    _ => f.ToString().ToLowerInvariant(),
                });
            }
        }

        return string.Join(", ", names);
    }
}

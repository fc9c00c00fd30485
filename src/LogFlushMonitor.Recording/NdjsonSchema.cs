using System.Text.Json;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Recording;

/// <summary>
/// What each NDJSON type requires and how its names read (the format is documented on <see cref="NdjsonSampleWriter"/>
/// and in docs/configuration.md): the checks a parsed line passes before it is delivered.
/// </summary>
internal static class NdjsonSchema
{
    /// <summary>
    /// Times outside this window are damage, not recordings (Extended Events exist since 2008): a line at 9999-12-31
    /// would overflow the rebase to now and stall a paced replay for millennia.
    /// </summary>
    public static readonly DateTime EarliestTime = new(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    /// <summary>The end (exclusive) of the window of plausible times.</summary>
    public static readonly DateTime LatestTime = new(2100, 1, 1, 0, 0, 0, DateTimeKind.Utc);

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

        if ((record.Present & NdjsonField.T) != 0 && !IsPlausible(record.Time))
        {
            return $"invalid field 't': {record.Time:O} is outside {EarliestTime:yyyy-MM-dd} to {LatestTime:yyyy-MM-dd}";
        }

        if ((record.Present & NdjsonField.StartTime) != 0 && !IsPlausible(record.StartTime))
        {
            return $"invalid field 'start_time': {record.StartTime:O} is outside {EarliestTime:yyyy-MM-dd} to {LatestTime:yyyy-MM-dd}";
        }

        if (record.Type is NdjsonRecordType.FileStats or NdjsonRecordType.DatabaseName or NdjsonRecordType.WriteLogWaiting or NdjsonRecordType.LogWriters or NdjsonRecordType.HadrReplica && record.Database is null)
        {
            return "invalid field 'db': expected a string";
        }

        if (record.Type == NdjsonRecordType.FlushBucket && record.Count <= 0)
        {
            return "invalid field 'count': expected a positive integer";
        }

        if (record.Type == NdjsonRecordType.WriteLogWaiting && record.Sessions is < 0 or > int.MaxValue)
        {
            return "invalid field 'sessions': expected a non-negative 32-bit integer";
        }

        if (record.Type == NdjsonRecordType.WriteLogWaiting && record.LongestWaitMs < 0)
        {
            return "invalid field 'longest_wait_ms': expected a non-negative integer";
        }

        if (record.Type == NdjsonRecordType.LogWriters && record.Transactions is < 0 or > int.MaxValue)
        {
            return "invalid field 'transactions': expected a non-negative 32-bit integer";
        }

        if (record.Type == NdjsonRecordType.PollCompleted && PollKindOf(record.Kind!) is null)
        {
            return $"invalid field 'kind': '{record.Kind}' is not counters, wait_stats, file_stats, writelog_waiting, log_writers or hadr_replicas";
        }

        if (record.Type == NdjsonRecordType.Loss && LossKindOf(record.Kind!) is null)
        {
            return $"invalid field 'kind': '{record.Kind}' is not sequence_gap, channel_full, server_dropped or malformed";
        }

        return null;
    }

    private static bool IsPlausible(DateTime utc) => utc >= EarliestTime && utc < LatestTime;

    /// <summary>The type a <c>type</c> string value names, <see cref="NdjsonRecordType.None"/> when unknown.</summary>
    public static NdjsonRecordType TypeOf(ref Utf8JsonReader reader) =>
        reader.ValueTextEquals("flush"u8) ? NdjsonRecordType.Flush
        : reader.ValueTextEquals("wait"u8) ? NdjsonRecordType.Wait
        : reader.ValueTextEquals("flush_complete"u8) ? NdjsonRecordType.FlushComplete
        : reader.ValueTextEquals("counter"u8) ? NdjsonRecordType.Counter
        : reader.ValueTextEquals("wait_stats"u8) ? NdjsonRecordType.WaitStats
        : reader.ValueTextEquals("file_stats"u8) ? NdjsonRecordType.FileStats
        : reader.ValueTextEquals("server_start"u8) ? NdjsonRecordType.ServerStart
        : reader.ValueTextEquals("poll_completed"u8) ? NdjsonRecordType.PollCompleted
        : reader.ValueTextEquals("loss"u8) ? NdjsonRecordType.Loss
        : reader.ValueTextEquals("database"u8) ? NdjsonRecordType.DatabaseName
        : reader.ValueTextEquals("flush_bucket"u8) ? NdjsonRecordType.FlushBucket
        : reader.ValueTextEquals("writelog_waiting"u8) ? NdjsonRecordType.WriteLogWaiting
        : reader.ValueTextEquals("log_writers"u8) ? NdjsonRecordType.LogWriters
        : reader.ValueTextEquals("hadr_replica"u8) ? NdjsonRecordType.HadrReplica
        : NdjsonRecordType.None;

    public static PollKind? PollKindOf(string kind) => kind switch
    {
        "counters" => PollKind.Counters,
        "wait_stats" => PollKind.WaitStats,
        "file_stats" => PollKind.FileStats,
        "writelog_waiting" => PollKind.WriteLogWaiters,
        "log_writers" => PollKind.LogWriters,
        "hadr_replicas" => PollKind.HadrReplicas,
        _ => null,
    };

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
        NdjsonRecordType.Counter => (NdjsonField.T | NdjsonField.Instance | NdjsonField.Object | NdjsonField.Counter | NdjsonField.CounterInstance | NdjsonField.Value | NdjsonField.CntrType, "t, instance, object, counter, counter_instance, value, cntr_type"),
        NdjsonRecordType.WaitStats => (NdjsonField.T | NdjsonField.Instance | NdjsonField.WaitType | NdjsonField.WaitingTasks | NdjsonField.WaitTime, "t, instance, wait_type, waiting_tasks, wait_time_ms"),
        NdjsonRecordType.FileStats => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.Db | NdjsonField.FileId | NdjsonField.Writes | NdjsonField.Bytes | NdjsonField.Stall, "t, instance, db_id, db, file_id, num_of_writes, num_of_bytes_written, io_stall_write_ms"),
        NdjsonRecordType.ServerStart => (NdjsonField.T | NdjsonField.Instance | NdjsonField.StartTime, "t, instance, start_time"),
        NdjsonRecordType.PollCompleted => (NdjsonField.T | NdjsonField.Instance | NdjsonField.Kind, "t, instance, kind"),
        NdjsonRecordType.DatabaseName => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.Db, "t, instance, db_id, db"),
        NdjsonRecordType.FlushBucket => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.WriteSize | NdjsonField.Count, "t, instance, db_id, write_size, count"),
        NdjsonRecordType.WriteLogWaiting => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.Db | NdjsonField.Sessions | NdjsonField.LongestWait, "t, instance, db_id, db, sessions, longest_wait_ms"),
        NdjsonRecordType.LogWriters => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.Db | NdjsonField.App | NdjsonField.Transactions | NdjsonField.LogBytesUsed | NdjsonField.LogBytesReserved, "t, instance, db_id, db, app, transactions, log_bytes_used, log_bytes_reserved"),
        NdjsonRecordType.HadrReplica => (NdjsonField.T | NdjsonField.Instance | NdjsonField.DbId | NdjsonField.Db | NdjsonField.Ag | NdjsonField.Replica | NdjsonField.Role | NdjsonField.AvailabilityMode, "t, instance, db_id, db, ag, replica, role, availability_mode"),
        _ => (NdjsonField.Instance | NdjsonField.Kind | NdjsonField.Count, "instance, kind, count"),
    };

    private static string TypeName(NdjsonRecordType type) => type switch
    {
        NdjsonRecordType.Flush => "flush",
        NdjsonRecordType.FlushComplete => "flush_complete",
        NdjsonRecordType.Wait => "wait",
        NdjsonRecordType.Counter => "counter",
        NdjsonRecordType.WaitStats => "wait_stats",
        NdjsonRecordType.FileStats => "file_stats",
        NdjsonRecordType.ServerStart => "server_start",
        NdjsonRecordType.PollCompleted => "poll_completed",
        NdjsonRecordType.DatabaseName => "database",
        NdjsonRecordType.FlushBucket => "flush_bucket",
        NdjsonRecordType.WriteLogWaiting => "writelog_waiting",
        NdjsonRecordType.LogWriters => "log_writers",
        NdjsonRecordType.HadrReplica => "hadr_replica",
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
                    NdjsonField.CounterInstance => "counter_instance",
                    NdjsonField.CntrType => "cntr_type",
                    NdjsonField.WaitingTasks => "waiting_tasks",
                    NdjsonField.WaitTime => "wait_time_ms",
                    NdjsonField.FileId => "file_id",
                    NdjsonField.Writes => "num_of_writes",
                    NdjsonField.Bytes => "num_of_bytes_written",
                    NdjsonField.Stall => "io_stall_write_ms",
                    NdjsonField.StartTime => "start_time",
                    NdjsonField.LongestWait => "longest_wait_ms",
                    NdjsonField.LogBytesUsed => "log_bytes_used",
                    NdjsonField.LogBytesReserved => "log_bytes_reserved",
                    NdjsonField.AvailabilityMode => "availability_mode",
                    _ => f.ToString().ToLowerInvariant(),
                });
            }
        }

        return string.Join(", ", names);
    }
}

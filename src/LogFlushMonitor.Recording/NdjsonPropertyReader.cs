using System.Text.Json;

namespace LogFlushMonitor.Recording;

/// <summary>
/// Reads one property of an NDJSON line into its field of <see cref="NdjsonRecord"/>, by name, with the type the
/// format gives it; unknown properties are skipped (later versions may add fields). Returns null, or what is wrong.
/// </summary>
internal sealed class NdjsonPropertyReader(NdjsonRecord record, NdjsonStringInterner strings)
{
    /// <summary>Reads the property the reader stands on; <paramref name="unknownType"/> receives an unknown type's name.</summary>
    public string? Read(ref Utf8JsonReader reader, ref string? unknownType) =>
        reader.ValueTextEquals("type"u8) ? ReadType(ref reader, ref unknownType)
        : reader.ValueTextEquals("t"u8) ? ReadTime(ref reader, "t", NdjsonField.T, ref record.Time)
        : reader.ValueTextEquals("instance"u8) ? ReadString(ref reader, "instance", NdjsonField.Instance, ref record.Instance)
        : reader.ValueTextEquals("db_id"u8) ? ReadInt(ref reader, "db_id", NdjsonField.DbId, ref record.DatabaseId)
        : reader.ValueTextEquals("db"u8) ? ReadString(ref reader, "db", NdjsonField.Db, ref record.Database, nullable: true)
        : reader.ValueTextEquals("write_size"u8) ? ReadWriteSize(ref reader)
        : reader.ValueTextEquals("block"u8) ? ReadBlock(ref reader)
        : reader.ValueTextEquals("duration_us"u8) ? ReadDuration(ref reader)
        : reader.ValueTextEquals("seq"u8) ? ReadLong(ref reader, "seq", NdjsonField.None, ref record.Sequence)
        : reader.ValueTextEquals("count"u8) ? ReadLong(ref reader, "count", NdjsonField.Count, ref record.Count)
        : reader.ValueTextEquals("kind"u8) ? ReadString(ref reader, "kind", NdjsonField.Kind, ref record.Kind)
        : ReadPolledRowProperty(ref reader);

    /// <summary>The properties of counter, wait-stats, file-stats and server-start lines.</summary>
    private string? ReadPolledRowProperty(ref Utf8JsonReader reader) =>
        reader.ValueTextEquals("wait_type"u8) ? ReadString(ref reader, "wait_type", NdjsonField.WaitType, ref record.WaitType)
        : reader.ValueTextEquals("object"u8) ? ReadString(ref reader, "object", NdjsonField.Object, ref record.CounterObject)
        : reader.ValueTextEquals("counter"u8) ? ReadString(ref reader, "counter", NdjsonField.Counter, ref record.CounterName)
        : reader.ValueTextEquals("counter_instance"u8) ? ReadString(ref reader, "counter_instance", NdjsonField.CounterInstance, ref record.CounterInstance)
        : reader.ValueTextEquals("value"u8) ? ReadLong(ref reader, "value", NdjsonField.Value, ref record.CounterValue)
        : reader.ValueTextEquals("cntr_type"u8) ? ReadInt(ref reader, "cntr_type", NdjsonField.CntrType, ref record.CounterType)
        : reader.ValueTextEquals("base"u8) ? ReadLong(ref reader, "base", NdjsonField.None, ref record.CounterBase)
        : reader.ValueTextEquals("waiting_tasks"u8) ? ReadLong(ref reader, "waiting_tasks", NdjsonField.WaitingTasks, ref record.WaitingTasks)
        : reader.ValueTextEquals("wait_time_ms"u8) ? ReadLong(ref reader, "wait_time_ms", NdjsonField.WaitTime, ref record.WaitTimeMs)
        : reader.ValueTextEquals("max_wait_time_ms"u8) ? ReadLong(ref reader, "max_wait_time_ms", NdjsonField.None, ref record.MaxWaitTimeMs)
        : reader.ValueTextEquals("signal_wait_time_ms"u8) ? ReadLong(ref reader, "signal_wait_time_ms", NdjsonField.None, ref record.SignalWaitTimeMs)
        : reader.ValueTextEquals("file_id"u8) ? ReadInt(ref reader, "file_id", NdjsonField.FileId, ref record.FileId)
        : reader.ValueTextEquals("num_of_writes"u8) ? ReadLong(ref reader, "num_of_writes", NdjsonField.Writes, ref record.NumWrites)
        : reader.ValueTextEquals("num_of_bytes_written"u8) ? ReadLong(ref reader, "num_of_bytes_written", NdjsonField.Bytes, ref record.BytesWritten)
        : reader.ValueTextEquals("io_stall_write_ms"u8) ? ReadLong(ref reader, "io_stall_write_ms", NdjsonField.Stall, ref record.IoStallWriteMs)
        : reader.ValueTextEquals("start_time"u8) ? ReadTime(ref reader, "start_time", NdjsonField.StartTime, ref record.StartTime)
        : reader.ValueTextEquals("sessions"u8) ? ReadLong(ref reader, "sessions", NdjsonField.Sessions, ref record.Sessions)
        : reader.ValueTextEquals("longest_wait_ms"u8) ? ReadLong(ref reader, "longest_wait_ms", NdjsonField.LongestWait, ref record.LongestWaitMs)
        : ReadWhoProperty(ref reader);

    /// <summary>The properties of a wait's application, log_writers and hadr_replica lines.</summary>
    private string? ReadWhoProperty(ref Utf8JsonReader reader) =>
        reader.ValueTextEquals("app"u8) ? ReadString(ref reader, "app", NdjsonField.App, ref record.App)
        : reader.ValueTextEquals("transactions"u8) ? ReadLong(ref reader, "transactions", NdjsonField.Transactions, ref record.Transactions)
        : reader.ValueTextEquals("log_bytes_used"u8) ? ReadLong(ref reader, "log_bytes_used", NdjsonField.LogBytesUsed, ref record.LogBytesUsed)
        : reader.ValueTextEquals("log_bytes_reserved"u8) ? ReadLong(ref reader, "log_bytes_reserved", NdjsonField.LogBytesReserved, ref record.LogBytesReserved)
        : reader.ValueTextEquals("ag"u8) ? ReadString(ref reader, "ag", NdjsonField.Ag, ref record.AvailabilityGroup)
        : reader.ValueTextEquals("replica"u8) ? ReadString(ref reader, "replica", NdjsonField.Replica, ref record.Replica)
        : reader.ValueTextEquals("role"u8) ? ReadString(ref reader, "role", NdjsonField.Role, ref record.Role)
        : reader.ValueTextEquals("availability_mode"u8) ? ReadString(ref reader, "availability_mode", NdjsonField.AvailabilityMode, ref record.AvailabilityMode)
        : reader.ValueTextEquals("synchronization_state"u8) ? ReadString(ref reader, "synchronization_state", NdjsonField.None, ref record.SynchronizationState, nullable: true)
        : reader.ValueTextEquals("log_send_queue_kb"u8) ? ReadOptionalLong(ref reader, "log_send_queue_kb", ref record.LogSendQueueKb)
        : reader.ValueTextEquals("log_send_rate_kb_per_s"u8) ? ReadOptionalLong(ref reader, "log_send_rate_kb_per_s", ref record.LogSendRateKbPerSecond)
        : reader.ValueTextEquals("redo_queue_kb"u8) ? ReadOptionalLong(ref reader, "redo_queue_kb", ref record.RedoQueueKb)
        : reader.ValueTextEquals("redo_rate_kb_per_s"u8) ? ReadOptionalLong(ref reader, "redo_rate_kb_per_s", ref record.RedoRateKbPerSecond)
        : reader.ValueTextEquals("secondary_lag_s"u8) ? ReadOptionalLong(ref reader, "secondary_lag_s", ref record.SecondaryLagSeconds)
        : reader.ValueTextEquals("last_hardened_age_s"u8) ? ReadOptionalLong(ref reader, "last_hardened_age_s", ref record.LastHardenedAgeSeconds)
        : SkipUnknown(ref reader);

    /// <summary>A figure the server may leave NULL: absent or null is null, never 0.</summary>
    private static string? ReadOptionalLong(ref Utf8JsonReader reader, string name, ref long? target)
    {
        reader.Read();
        if (reader.TokenType == JsonTokenType.Null)
        {
            target = null;
            return null;
        }

        if (reader.TokenType == JsonTokenType.Number && reader.TryGetInt64(out var value))
        {
            target = value;
            return null;
        }

        return $"invalid field '{name}': expected a 64-bit integer or null";
    }

    private static string? SkipUnknown(ref Utf8JsonReader reader)
    {
        reader.Read();
        reader.Skip();
        return null;
    }

    private string? ReadType(ref Utf8JsonReader reader, ref string? unknownType)
    {
        reader.Read();
        if (reader.TokenType != JsonTokenType.String)
        {
            return "invalid field 'type': expected a string";
        }

        record.Type = NdjsonSchema.TypeOf(ref reader);
        if (record.Type == NdjsonRecordType.None)
        {
            unknownType = reader.GetString();
        }

        return null;
    }

    private string? ReadWriteSize(ref Utf8JsonReader reader)
    {
        reader.Read();
        return reader.TokenType == JsonTokenType.Number && reader.TryGetUInt32(out record.WriteSize)
            ? record.Mark(NdjsonField.WriteSize)
            : "invalid field 'write_size': expected an unsigned 32-bit integer";
    }

    private string? ReadBlock(ref Utf8JsonReader reader)
    {
        reader.Read();
        return reader.TokenType == JsonTokenType.Number && reader.TryGetUInt64(out record.LogBlockId)
            ? null
            : "invalid field 'block': expected an unsigned 64-bit integer";
    }

    /// <summary>
    /// The longest duration a flush or wait line may hold: one day, in microseconds (the .xel reader's bound,
    /// <c>XelClock.Tolerance</c>). No log flush or WRITELOG wait lasts that long; a larger value is a damaged one, and
    /// would turn one line into years of waiting in a 10-second window.
    /// </summary>
    public static readonly double MaxDurationMicroseconds = TimeSpan.FromDays(1).TotalMicroseconds;

    private string? ReadDuration(ref Utf8JsonReader reader)
    {
        reader.Read();
        if (reader.TokenType != JsonTokenType.Number || !reader.TryGetDouble(out var us) || !(us >= 0))
        {
            return "invalid field 'duration_us': expected a non-negative number";
        }

        if (us > MaxDurationMicroseconds)
        {
            return string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"invalid field 'duration_us': {us:R} µs is more than a day ({MaxDurationMicroseconds:R} µs): no flush or wait lasts that long, a damaged value");
        }

        record.DurationTicks = (long)Math.Round(us * 10);
        return record.Mark(NdjsonField.Duration);
    }

    private string? ReadInt(ref Utf8JsonReader reader, string name, NdjsonField field, ref int target)
    {
        reader.Read();
        return reader.TokenType == JsonTokenType.Number && reader.TryGetInt32(out target)
            ? record.Mark(field)
            : $"invalid field '{name}': expected a 32-bit integer";
    }

    private string? ReadLong(ref Utf8JsonReader reader, string name, NdjsonField field, ref long target)
    {
        reader.Read();
        return reader.TokenType == JsonTokenType.Number && reader.TryGetInt64(out target)
            ? record.Mark(field)
            : $"invalid field '{name}': expected a 64-bit integer";
    }

    private string? ReadTime(ref Utf8JsonReader reader, string name, NdjsonField field, ref DateTime target)
    {
        reader.Read();
        if (reader.TokenType != JsonTokenType.String || !reader.TryGetDateTime(out var value))
        {
            return $"invalid field '{name}': expected an ISO-8601 time";
        }

        // A Z or offset gives UTC (converted through local time by the reader); no offset is taken as UTC.
        target = value.Kind switch
        {
            DateTimeKind.Local => value.ToUniversalTime(),
            _ => DateTime.SpecifyKind(value, DateTimeKind.Utc),
        };
        return record.Mark(field);
    }

    private string? ReadString(ref Utf8JsonReader reader, string name, NdjsonField field, ref string? target, bool nullable = false)
    {
        reader.Read();
        if (nullable && reader.TokenType == JsonTokenType.Null)
        {
            target = null;
            return null;
        }

        if (reader.TokenType != JsonTokenType.String)
        {
            return $"invalid field '{name}': expected a string";
        }

        target = strings.Intern(ref reader);
        return record.Mark(field);
    }
}

using System.Text.Json;

namespace LogFlushMonitor.Recording;

/// <summary>
/// Reads one property of an event or loss line into its field of <see cref="NdjsonRecord"/>, by name, with the type the
/// format gives it; unknown properties are skipped (later versions may add fields). Returns null, or what is wrong. A
/// signal's lines are read by the signal's own contract (<see cref="NdjsonLineParser"/>).
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
        : reader.ValueTextEquals("wait_type"u8) ? ReadString(ref reader, "wait_type", NdjsonField.WaitType, ref record.WaitType)
        : reader.ValueTextEquals("app"u8) ? ReadString(ref reader, "app", NdjsonField.App, ref record.App)
        : reader.ValueTextEquals("query_hash"u8) ? ReadQueryHash(ref reader)
        : SkipUnknown(ref reader);

    /// <summary>A wait's statement: <c>0x</c> and up to 16 hex digits (<see cref="Core.Samples.QueryHashes"/>), read without allocating.</summary>
    private string? ReadQueryHash(ref Utf8JsonReader reader)
    {
        reader.Read();
        Span<char> text = stackalloc char[Core.Samples.QueryHashes.Length];
        return reader.TokenType == JsonTokenType.String && !reader.ValueIsEscaped && reader.ValueSpan.Length <= text.Length
            && Core.Samples.QueryHashes.TryParse(text[..System.Text.Encoding.ASCII.GetChars(reader.ValueSpan, text)], out record.QueryHash)
            ? record.Mark(NdjsonField.QueryHash)
            : "invalid field 'query_hash': expected \"0x\" and 1 to 16 hex digits";
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

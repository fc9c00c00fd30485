using System.Text.Json;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Recording;

/// <summary>
/// Parses one NDJSON line into an <see cref="NdjsonRecord"/> (each property by <see cref="NdjsonPropertyReader"/>,
/// checked by <see cref="NdjsonSchema"/>), then delivers the sample. Repeating strings are interned
/// (<see cref="NdjsonStringInterner"/>), so a line of known strings allocates nothing.
/// </summary>
/// <remarks>Not thread-safe: one replay owns one parser.</remarks>
internal sealed class NdjsonLineParser
{
    private readonly NdjsonRecord _record = new();
    private readonly NdjsonPropertyReader _properties;

    public NdjsonLineParser() => _properties = new NdjsonPropertyReader(_record, new NdjsonStringInterner());

    /// <summary>The instance of the last line parsed, when it had a valid one.</summary>
    public string? Instance => _record.Instance;

    /// <summary>The time of the last line parsed (before any shift), when it had one.</summary>
    public DateTime? Time => (_record.Present & NdjsonField.T) != 0 ? _record.Time : null;

    /// <summary>Parses <paramref name="line"/>; returns null when it holds a valid sample, otherwise what is wrong.</summary>
    public string? Parse(ReadOnlySpan<byte> line)
    {
        _record.Clear();
        try
        {
            var reader = new Utf8JsonReader(line, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Disallow });
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return "expected a JSON object";
            }

            string? unknownType = null;
            string? firstError = null;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var error = _properties.Read(ref reader, ref unknownType);
                if (error is not null)
                {
                    // Read on: a later field may still name the instance the loss is counted against.
                    firstError ??= error;
                    reader.Skip();
                }
            }

            if (reader.TokenType != JsonTokenType.EndObject || reader.Read())
            {
                return "invalid JSON: text after the object";
            }

            if (firstError is not null)
            {
                return firstError;
            }

            if (unknownType is not null)
            {
                return $"unknown type '{unknownType}'";
            }

            return _record.Type == NdjsonRecordType.None ? "missing field 'type'" : NdjsonSchema.Validate(_record);
        }
        catch (JsonException e)
        {
            return "invalid JSON: " + e.Message;
        }
        catch (InvalidOperationException)
        {
            // Utf8JsonReader checks a string's UTF-8 only when it is decoded.
            return "invalid UTF-8 in a string";
        }
    }

    /// <summary>Delivers the parsed sample, its times shifted by <paramref name="shiftTicks"/>.</summary>
    public void Deliver(ISampleSink sink, long shiftTicks) => _record.Deliver(sink, shiftTicks);
}

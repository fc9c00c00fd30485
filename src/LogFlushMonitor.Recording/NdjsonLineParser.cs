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

            return _record.Type == NdjsonRecordType.None ? "missing field 'type'" : NdjsonSchema.Validate(_record) ?? CheckLossCount();
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

    /// <summary>
    /// The largest <c>count</c> a <c>loss</c> line may hold: more events than a session can number (10 million a second,
    /// the .xel reader's bound on event_sequence steps) in the whole window of plausible times
    /// (<see cref="NdjsonSchema.EarliestTime"/> to <see cref="NdjsonSchema.LatestTime"/>), about 3.2 × 10^16. A larger
    /// count is a damaged value, not a loss: the line is malformed (counted and named), and no sum of counts it feeds
    /// can wrap.
    /// </summary>
    public static readonly long MaxLossCount = 10_000_000L * (long)(NdjsonSchema.LatestTime - NdjsonSchema.EarliestTime).TotalSeconds;

    /// <summary>A <c>loss</c> line's count must be 0 to <see cref="MaxLossCount"/>.</summary>
    private string? CheckLossCount() =>
        _record.Type == NdjsonRecordType.Loss && (_record.Count < 0 || _record.Count > MaxLossCount)
            ? $"invalid field 'count': {_record.Count} is not a number of lost events (0 to {MaxLossCount}: more than a session can number in {NdjsonSchema.EarliestTime:yyyy} to {NdjsonSchema.LatestTime:yyyy})"
            : null;

    /// <summary>Delivers the parsed sample, its times shifted by <paramref name="shiftTicks"/>.</summary>
    public void Deliver(ISampleSink sink, long shiftTicks) => _record.Deliver(sink, shiftTicks);
}

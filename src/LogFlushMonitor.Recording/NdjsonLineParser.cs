using System.Text.Json;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Recording;

/// <summary>
/// Parses one NDJSON line into an <see cref="NdjsonRecord"/>, then delivers the sample. An event or loss line is read
/// property by property (<see cref="NdjsonPropertyReader"/>, checked by <see cref="NdjsonSchema"/>); repeating strings are
/// interned (<see cref="NdjsonStringInterner"/>), so an event line of known strings allocates nothing. A signal's line (its
/// row, or the <c>poll_completed</c> that ends its poll) is read by the signal's own contract
/// (<see cref="SignalRecording"/>): a few lines per poll, whatever the signal.
/// </summary>
/// <remarks>Not thread-safe: one replay owns one parser.</remarks>
internal sealed class NdjsonLineParser
{
    private readonly NdjsonRecord _record = new();
    private readonly NdjsonPropertyReader _properties;

    private readonly NdjsonStringInterner _strings = new();

    public NdjsonLineParser() => _properties = new NdjsonPropertyReader(_record, _strings);

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
            if (ParseSignalLine(line, out var signalError))
            {
                return signalError;
            }

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
    /// When <paramref name="line"/> is a signal's (its <c>type</c> a signal's line type or <c>poll_completed</c>): reads it
    /// and returns true, with <paramref name="error"/> null or what is wrong. False for an event or loss line (or none).
    /// </summary>
    private bool ParseSignalLine(ReadOnlySpan<byte> line, out string? error)
    {
        error = null;
        var reader = new Utf8JsonReader(line);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            return false;
        }

        SignalRecording? recording = null;
        var completed = false;
        string? kind = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (reader.ValueTextEquals("type"u8))
            {
                if (!reader.Read() || reader.TokenType != JsonTokenType.String || NdjsonSchema.TypeOf(ref reader) != NdjsonRecordType.None)
                {
                    return false; // an event or loss line (or a type the other path names as wrong)
                }

                completed = reader.ValueTextEquals("poll_completed"u8);
                if (!completed && (recording = SignalRegistry.RecordingOf(reader.GetString()!)) is null)
                {
                    return false; // an unknown type: the other path says so
                }
            }
            else if (reader.ValueTextEquals("t"u8) || reader.ValueTextEquals("instance"u8))
            {
                string? notAType = null;
                error ??= _properties.Read(ref reader, ref notAType);
            }
            else if (reader.ValueTextEquals("kind"u8))
            {
                reader.Read();
                kind = reader.TokenType == JsonTokenType.String ? _strings.Intern(ref reader) : null;
                if (kind is null)
                {
                    error ??= "invalid field 'kind': expected a string";
                }
            }
            else
            {
                reader.Read();
                reader.Skip();
            }
        }

        if (recording is null && !completed)
        {
            return false; // no type yet seen: the other path says what is missing
        }

        _record.Type = NdjsonRecordType.Signal;
        var type = completed ? "poll_completed" : recording!.LineType;
        var missing = string.Join(", ", new[] { ("t", NdjsonField.T), ("instance", NdjsonField.Instance) }.Where(f => (_record.Present & f.Item2) == 0).Select(f => f.Item1)
            .Concat(completed && kind is null && error is null ? ["kind"] : []));
        if (error is not null)
        {
            return true;
        }

        if (missing.Length > 0)
        {
            error = $"missing field(s) for type {type}: {missing} (required: t, instance{(completed ? ", kind" : ", and the fields of the type")})";
            return true;
        }

        if (!RecordedTimes.IsPlausible(_record.Time))
        {
            error = $"invalid field 't': {_record.Time:O} is outside {NdjsonSchema.EarliestTime:yyyy-MM-dd} to {NdjsonSchema.LatestTime:yyyy-MM-dd}";
            return true;
        }

        if (completed)
        {
            if (SignalRegistry.CompletedBy(kind!) is not { } ended)
            {
                error = $"invalid field 'kind': '{kind}' is not {string.Join(", ", SignalRegistry.All.Select(s => s.Recording?.CompletedKind).OfType<string>().SkipLast(1))} or {SignalRegistry.All.Select(s => s.Recording?.CompletedKind).OfType<string>().Last()}";
                return true;
            }

            _record.Batch = ended.EndOfPoll(_record.Instance!, _record.Time);
            return true;
        }

        _record.Batch = recording!.ReadRow(line, _record.Instance!, _record.Time, out error);
        return true;
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

    /// <summary>The line just parsed (valid until the next <see cref="Parse"/>).</summary>
    public NdjsonRecord Current => _record;
}

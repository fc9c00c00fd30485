using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// How a signal's rows are kept in an NDJSON recording: each row one line of <see cref="LineType"/>
/// (<c>{"type":…,"t":…,"instance":…</c> and then the row's own fields, by the row's source-generated System.Text.Json
/// contract), and the end of a poll one <c>poll_completed</c> line of <see cref="CompletedKind"/>. The line format is
/// the one recordings have had since each type was added, so recordings written before keep reading (docs/analyze.md).
/// </summary>
public abstract partial class SignalRecording
{
    private protected SignalRecording(string lineType, string? completedKind)
    {
        LineType = lineType;
        EncodedLineType = JsonEncodedText.Encode(lineType);
        CompletedKind = completedKind;
        EncodedCompletedKind = completedKind is null ? default : JsonEncodedText.Encode(completedKind);
    }

    /// <summary>The <c>type</c> of a row's line (<c>counter</c>, <c>wait_stats</c>, ...).</summary>
    public string LineType { get; }

    /// <summary><see cref="LineType"/>, encoded once for the writer.</summary>
    public JsonEncodedText EncodedLineType { get; }

    /// <summary>The <c>kind</c> of the <c>poll_completed</c> line that ends one of its polls, or null when a poll writes none.</summary>
    public string? CompletedKind { get; }

    /// <summary><see cref="CompletedKind"/>, encoded once for the writer.</summary>
    public JsonEncodedText EncodedCompletedKind { get; }

    /// <summary>Whether a replay moves times held in the rows themselves (beside the line's <c>t</c>).</summary>
    public abstract bool HasTimes { get; }

    /// <summary>The signal the lines are of.</summary>
    public abstract Signal Signal { get; }

    /// <summary>Writes row <paramref name="index"/> of <paramref name="batch"/> as one JSON object of its own fields.</summary>
    public abstract void WriteRow(Utf8JsonWriter writer, SignalBatch batch, int index);

    /// <summary>
    /// Reads the row of one line (whose <c>type</c> is <see cref="LineType"/>; <c>type</c>, <c>t</c> and <c>instance</c>
    /// are the caller's) into a batch of that one row; null with <paramref name="error"/> saying what is wrong.
    /// </summary>
    public abstract SignalBatch? ReadRow(ReadOnlySpan<byte> line, string instance, DateTime timestampUtc, out string? error);

    /// <summary>The end of a poll of the signal (a <c>poll_completed</c> line of <see cref="CompletedKind"/>).</summary>
    public abstract SignalBatch EndOfPoll(string instance, DateTime timestampUtc);

    /// <summary>A JSON exception of a row's contract in the words the rest of the reader uses (field names, never .NET types).</summary>
    private protected string Explain(JsonException e)
    {
        if (MissingProperties().Match(e.Message) is { Success: true } missing)
        {
            return $"missing field(s) for type {LineType}: {missing.Groups[1].Value.Replace("'", "", StringComparison.Ordinal)}";
        }

        var field = e.Path is { Length: > 2 } path && path.StartsWith("$.", StringComparison.Ordinal) ? path[2..] : null;
        var expected = ConvertedTo().Match(e.Message) is { Success: true } to ? to.Groups[1].Value switch
        {
            "System.Int64" => "a 64-bit integer",
            "System.Int32" => "a 32-bit integer",
            "System.UInt32" => "an unsigned 32-bit integer",
            "System.String" => "a string",
            "System.DateTime" => "an ISO-8601 time",
            "System.Boolean" => "true or false",
            var other when other.StartsWith("System.Nullable", StringComparison.Ordinal) => "a 64-bit integer or null",
            _ => "another type",
        } : null;
        return field is not null && expected is not null ? $"invalid field '{field}': expected {expected}"
            : field is not null ? $"invalid field '{field}'"
            : "invalid JSON: " + e.Message;
    }

    [GeneratedRegex(@"missing required properties,? including:? (.+?)\.?$")]
    private static partial Regex MissingProperties();

    [GeneratedRegex(@"could not be converted to ([A-Za-z0-9_.`\[\]]+)")]
    private static partial Regex ConvertedTo();
}

/// <summary>The recording of a <see cref="Signal{TRow}"/>.</summary>
/// <typeparam name="TRow">The signal's row.</typeparam>
/// <param name="signal">The signal.</param>
/// <param name="lineType">The <c>type</c> of a row's line.</param>
/// <param name="completedKind">The <c>kind</c> of its <c>poll_completed</c> line, or null.</param>
/// <param name="contract">The row's source-generated contract (field names and order of the line).</param>
/// <param name="validate">What a row read must satisfy beyond its types (null when it does), or null.</param>
/// <param name="shift">Moves the times a row holds, or null when it holds none.</param>
public sealed class SignalRecording<TRow>(Signal<TRow> signal, string lineType, string? completedKind, JsonTypeInfo<TRow> contract,
    Func<TRow, string?>? validate = null, Func<TRow, long, TRow>? shift = null) : SignalRecording(lineType, completedKind)
{
    /// <inheritdoc />
    public override Signal Signal => signal;

    /// <inheritdoc />
    public override bool HasTimes => shift is not null;

    /// <summary>The row with its own times moved <paramref name="ticks"/> later.</summary>
    public TRow Shift(TRow row, long ticks) => shift is null ? row : shift(row, ticks);

    /// <inheritdoc />
    public override void WriteRow(Utf8JsonWriter writer, SignalBatch batch, int index) =>
        JsonSerializer.Serialize(writer, ((SignalBatch<TRow>)batch).Rows[index], contract);

    /// <inheritdoc />
    public override SignalBatch EndOfPoll(string instance, DateTime timestampUtc) => signal.End(instance, timestampUtc);

    /// <inheritdoc />
    public override SignalBatch? ReadRow(ReadOnlySpan<byte> line, string instance, DateTime timestampUtc, out string? error)
    {
        TRow? row;
        try
        {
            row = JsonSerializer.Deserialize(line, contract);
        }
        catch (JsonException e)
        {
            error = Explain(e);
            return null;
        }
        catch (InvalidOperationException)
        {
            error = "invalid UTF-8 in a string";
            return null;
        }

        if (row is null)
        {
            error = "expected a JSON object";
            return null;
        }

        error = validate?.Invoke(row);
        return error is null ? signal.Row(instance, timestampUtc, row) : null;
    }
}

/// <summary>
/// A time in a recording: ISO-8601 UTC with 7 fractional digits and a Z when written (as every time of the format);
/// read with a Z or an offset as UTC, without one taken as UTC.
/// </summary>
public sealed class RecordedTimeConverter : JsonConverter<DateTime>
{
    /// <inheritdoc />
    public override DateTime Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        if (reader.TokenType != JsonTokenType.String || !reader.TryGetDateTime(out var value))
        {
            throw new JsonException("The JSON value could not be converted to System.DateTime.");
        }

        return value.Kind == DateTimeKind.Local ? value.ToUniversalTime() : DateTime.SpecifyKind(value, DateTimeKind.Utc);
    }

    /// <inheritdoc />
    public override void Write(Utf8JsonWriter writer, DateTime value, JsonSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(writer);
        var utc = value.Kind == DateTimeKind.Local ? value.ToUniversalTime() : DateTime.SpecifyKind(value, DateTimeKind.Utc);
        Span<byte> text = stackalloc byte[40];
        utc.TryFormat(text, out var written, "O", CultureInfo.InvariantCulture);
        writer.WriteStringValue(text[..written]);
    }
}

/// <summary>The times a recording may hold: anything else is damage, not a recording.</summary>
public static class RecordedTimes
{
    /// <summary>
    /// The start of the window of plausible times (Extended Events exist since 2008): a line at 9999-12-31 would overflow
    /// the rebase to now and stall a paced replay for millennia.
    /// </summary>
    public static readonly DateTime Earliest = new(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    /// <summary>The end (exclusive) of the window of plausible times.</summary>
    public static readonly DateTime Latest = new(2100, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    /// <summary>Whether <paramref name="utc"/> lies in the window.</summary>
    public static bool IsPlausible(DateTime utc) => utc >= Earliest && utc < Latest;
}

using System.Globalization;
using System.IO.Compression;
using System.Text;
using System.Text.Json;

namespace LogFlushMonitor.SqlServer.Check.Capture;

/// <summary>
/// Writes a capture as one zip of JSON and XML a person can read before sending it: <c>manifest.json</c> (the tool version,
/// the capture time, the durations, each statement's text and error, what the file holds and never holds), and per
/// instance <c>instances/&lt;name&gt;/statements.json</c> (every answer: columns with their SQL types, every row),
/// <c>stream.json</c> (each live-stream row: type, length, bytes in base64) and <c>histogram.xml</c>. Every text goes through
/// <see cref="CaptureScrubber"/> on the way out. Format version <see cref="FormatVersion"/>.
/// </summary>
public static class CaptureArchive
{
    /// <summary>The capture format's version, in the manifest; a reader refuses a newer one.</summary>
    public const int FormatVersion = 1;

    /// <summary>What a capture holds, in the manifest's words (and the command's output).</summary>
    public const string Contains = "for each instance: version and edition, the Extended Events catalog rows the monitor reads (events, their columns and descriptions, the WRITELOG map keys), two polls of counters, wait stats and log file stats, the live stream's raw rows (type, length, bytes) and the histogram target's XML from a temporary event session, and every statement sent with its error";

    /// <summary>What a capture never holds.</summary>
    public const string NeverContains = "the connection string, the password, the login name, this machine's name; the server's name is never asked for";

    /// <summary>What becomes of stream rows, in the manifest.</summary>
    public const string StreamRowRule = "stream rows are kept as the server sent them: the temporary session's events carry database ids, not names. A row whose bytes hold the login, this machine's name or (with --anonymize) a user database or instance name of 4 or more characters is dropped and counted here, not rewritten (its lengths and checksum would no longer hold)";

    /// <summary>
    /// Writes <paramref name="captures"/> to <paramref name="path"/> (through a temporary file, so a failed write leaves no
    /// half file); <paramref name="logins"/> are the login names of the connection strings, taken out of every text.
    /// </summary>
    public static async Task WriteAsync(string path, IReadOnlyList<InstanceCaptureResult> captures, CaptureSettings settings, DateTime capturedUtc,
        IEnumerable<string> logins, CancellationToken ct)
    {
        var databases = captures.SelectMany(c => c.Statements).Where(s => s.Name is "xe_all_databases" or "databases" && s.Columns.Count >= 2)
            .SelectMany(s => s.Rows.Where(r => r[0] is int && r[1] is string).Select(r => ((int)r[0]!, (string)r[1]!))).ToList();
        var scrubber = new CaptureScrubber(logins, Environment.MachineName, settings.Anonymize ? databases : null,
            settings.Anonymize ? captures.Select(c => c.Instance) : null);
        var temporary = path + ".partial";
        var stream = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16, useAsync: true);
        await using (stream.ConfigureAwait(false))
        {
            using var zip = new ZipArchive(stream, ZipArchiveMode.Create, leaveOpen: true);
            var manifest = new List<(string Folder, InstanceCaptureResult Capture, int Kept, int Dropped)>();
            var folders = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
            foreach (var capture in captures)
            {
                var folder = Folder(scrubber.Text(capture.Instance), folders);
                Entry(zip, $"instances/{folder}/statements.json", w => WriteStatements(w, capture, scrubber));
                var (kept, dropped) = (0, 0);
                Entry(zip, $"instances/{folder}/stream.json", w => (kept, dropped) = WriteStream(w, capture, scrubber));
                if (capture.HistogramXml is { } xml)
                {
                    var entry = zip.CreateEntry($"instances/{folder}/histogram.xml", CompressionLevel.Optimal);
                    using var s = entry.Open();
                    s.Write(Encoding.UTF8.GetBytes(scrubber.Text(xml)));
                }

                manifest.Add((folder, capture, kept, dropped));
                ct.ThrowIfCancellationRequested();
            }

            Entry(zip, "manifest.json", w => WriteManifest(w, manifest, settings, capturedUtc, scrubber));
        }

        File.Move(temporary, path, overwrite: true);
    }

    private static void Entry(ZipArchive zip, string name, Action<Utf8JsonWriter> write)
    {
        var entry = zip.CreateEntry(name, CompressionLevel.Optimal);
        using var s = entry.Open();
        using var w = new Utf8JsonWriter(s, new JsonWriterOptions { Indented = true });
        write(w);
    }

    private static string Folder(string instance, HashSet<string> taken)
    {
        var safe = new string([.. instance.Select(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.' ? c : '_')]).Trim('.');
        safe = safe.Length == 0 ? "instance" : safe;
        var folder = safe;
        for (var i = 2; !taken.Add(folder); i++)
        {
            folder = string.Create(CultureInfo.InvariantCulture, $"{safe}-{i}");
        }

        return folder;
    }

    private static void WriteManifest(Utf8JsonWriter w, List<(string Folder, InstanceCaptureResult Capture, int Kept, int Dropped)> instances, CaptureSettings settings,
        DateTime capturedUtc, CaptureScrubber scrubber)
    {
        w.WriteStartObject();
        w.WriteNumber("format", FormatVersion);
        w.WriteString("tool", settings.ToolVersion);
        w.WriteString("capturedUtc", capturedUtc.ToString("O", CultureInfo.InvariantCulture));
        w.WriteNumber("pollGapSeconds", settings.PollGap.TotalSeconds);
        w.WriteNumber("streamSeconds", settings.StreamTime.TotalSeconds);
        w.WriteNumber("maxStreamBytes", settings.MaxStreamBytes);
        w.WriteBoolean("anonymized", settings.Anonymize);
        w.WriteString("anonymization", settings.Anonymize
            ? "user databases (database_id above 4) are db1, db2, ... in database_id order and instances instance1, ... in every entry; master, tempdb, model, msdb and the engine's internal counter instances keep their names"
            : "database and instance names are kept (check --capture --anonymize replaces them)");
        w.WriteString("contains", Contains);
        w.WriteString("neverContains", NeverContains);
        w.WriteString("streamRows", StreamRowRule);
        w.WriteStartArray("instances");
        foreach (var (folder, c, kept, dropped) in instances)
        {
            w.WriteStartObject();
            w.WriteString("instance", scrubber.Text(c.Instance));
            w.WriteString("folder", $"instances/{folder}/");
            w.WriteStartArray("statements");
            foreach (var s in c.Statements)
            {
                w.WriteStartObject();
                w.WriteString("name", s.Name);
                if (s.Poll is { } poll)
                {
                    w.WriteNumber("poll", poll);
                }

                w.WriteString("text", scrubber.Text(s.Text));
                w.WriteNumber("rows", s.Rows.Count);
                WriteError(w, s, scrubber);
                w.WriteEndObject();
            }

            w.WriteEndArray();
            w.WriteStartObject("stream");
            w.WriteString("session", c.Session);
            w.WriteString("end", c.StreamEnd is null ? null : scrubber.Text(c.StreamEnd));
            w.WriteNumber("rowsKept", kept);
            w.WriteNumber("rowsDroppedForNames", dropped);
            w.WriteNumber("rowsOverByteLimit", c.StreamRowsOverLimit);
            w.WriteStartObject("rowsByType");
            for (var i = 0; i < XEvent.Binary.LiveStreamRowTally.Names.Count; i++)
            {
                w.WriteNumber(XEvent.Binary.LiveStreamRowTally.Names[i], c.StreamRowTypes.Rows(i));
            }

            w.WriteEndObject();
            w.WriteNumber("rowsWithNullData", c.StreamRowTypes.NullData);
            w.WriteEndObject();
            w.WriteBoolean("histogram", c.HistogramXml is not null);
            w.WriteStartArray("problems");
            foreach (var p in c.Problems)
            {
                w.WriteStringValue(scrubber.Text(p));
            }

            w.WriteEndArray();
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteEndObject();
    }

    private static void WriteStatements(Utf8JsonWriter w, InstanceCaptureResult c, CaptureScrubber scrubber)
    {
        w.WriteStartArray();
        foreach (var s in c.Statements)
        {
            w.WriteStartObject();
            w.WriteString("name", s.Name);
            if (s.Poll is { } poll)
            {
                w.WriteNumber("poll", poll);
            }

            w.WriteString("text", scrubber.Text(s.Text));
            if (s.Sent is { } sent)
            {
                w.WriteString("sent", scrubber.Text(sent));
            }

            w.WriteStartObject("parameters");
            foreach (var (name, value) in s.Parameters)
            {
                if (value is string[] list)
                {
                    w.WriteStartArray(name);
                    foreach (var item in list)
                    {
                        w.WriteStringValue(scrubber.Text(item));
                    }

                    w.WriteEndArray();
                }
                else
                {
                    w.WriteString(name, scrubber.Text(Convert.ToString(value, CultureInfo.InvariantCulture) ?? ""));
                }
            }

            w.WriteEndObject();
            w.WriteString("startedUtc", s.StartedUtc.ToString("O", CultureInfo.InvariantCulture));
            w.WriteNumber("elapsedMs", Math.Round(s.ElapsedMs, 3));
            WriteError(w, s, scrubber);
            w.WriteStartArray("columns");
            foreach (var (name, type) in s.Columns)
            {
                w.WriteStartObject();
                w.WriteString("name", name);
                w.WriteString("type", type);
                w.WriteEndObject();
            }

            w.WriteEndArray();
            w.WriteStartArray("rows");
            foreach (var row in s.Rows)
            {
                w.WriteStartArray();
                foreach (var cell in row)
                {
                    WriteCell(w, cell, scrubber);
                }

                w.WriteEndArray();
            }

            w.WriteEndArray();
            w.WriteEndObject();
        }

        w.WriteEndArray();
    }

    private static (int Kept, int Dropped) WriteStream(Utf8JsonWriter w, InstanceCaptureResult c, CaptureScrubber scrubber)
    {
        var (kept, dropped) = (0, 0);
        w.WriteStartObject();
        w.WriteString("session", c.Session);
        w.WriteString("statement", Sql.XeSql.ReadEventStream);
        w.WriteStartArray("rows");
        foreach (var row in c.StreamRows)
        {
            if (row.Data is { } bytes && scrubber.Hides(bytes))
            {
                dropped++;
                continue;
            }

            kept++;
            w.WriteStartObject();
            w.WriteNumber("type", row.Type);
            if (row.Data is { } data)
            {
                w.WriteNumber("length", data.Length);
                w.WriteBase64String("data", data);
            }
            else
            {
                w.WriteNull("length");
                w.WriteNull("data");
            }

            w.WriteString("receivedUtc", row.ReceivedUtc.ToString("O", CultureInfo.InvariantCulture));
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteEndObject();
        return (kept, dropped);
    }

    private static void WriteError(Utf8JsonWriter w, CapturedStatement s, CaptureScrubber scrubber)
    {
        if (s.ErrorNumber is { } number)
        {
            w.WriteStartObject("error");
            w.WriteNumber("number", number);
            w.WriteString("message", scrubber.Text(s.ErrorMessage ?? ""));
            w.WriteEndObject();
        }
    }

    private static void WriteCell(Utf8JsonWriter w, object? cell, CaptureScrubber scrubber)
    {
        switch (cell)
        {
            case null: w.WriteNullValue(); break;
            case string s: w.WriteStringValue(scrubber.Text(s)); break;
            case bool b: w.WriteBooleanValue(b); break;
            case byte or short or int or long: w.WriteNumberValue(Convert.ToInt64(cell, CultureInfo.InvariantCulture)); break;
            case decimal d: w.WriteNumberValue(d); break;
            case double or float: w.WriteNumberValue(Convert.ToDouble(cell, CultureInfo.InvariantCulture)); break;
            case DateTime t: w.WriteStringValue(t.ToString("O", CultureInfo.InvariantCulture)); break;
            case DateTimeOffset o: w.WriteStringValue(o.ToString("O", CultureInfo.InvariantCulture)); break;
            case byte[] bytes: w.WriteBase64StringValue(bytes); break;
            default: w.WriteStringValue(scrubber.Text(Convert.ToString(cell, CultureInfo.InvariantCulture) ?? "")); break;
        }
    }
}

using System.Text.Json;
using System.Text;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// Writes the report as one JSON document (schema in docs/analyze.md). Field names and units are a contract
/// for scripts: add fields freely, but renaming or changing a unit bumps <see cref="SchemaVersion"/>.
/// </summary>
internal static class JsonReportWriter
{
    /// <summary>Version of the document's schema.</summary>
    public const int SchemaVersion = 1;

    /// <summary>
    /// Writes <paramref name="report"/> to <paramref name="output"/> followed by a newline. <paramref name="exitCode"/>
    /// is the program's exit code for the report's outcome (the program, not this library, owns the numbers).
    /// </summary>
    public static void Write(AnalyzeReport report, int exitCode, TextWriter output)
    {
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            Write(report, exitCode, w);
        }

        output.WriteLine(Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length));
    }

    private static void Write(AnalyzeReport report, int exitCode, Utf8JsonWriter w)
    {
        w.WriteStartObject();
        w.WriteNumber("schema_version", SchemaVersion);
        w.WriteNumber("exit_code", exitCode);
        w.WriteNumber("elapsed_seconds", Math.Round(report.Elapsed.TotalSeconds, 3));
        w.WriteStartObject("totals");
        w.WriteNumber("files", report.Files.Count);
        w.WriteNumber("bytes", report.TotalBytes);
        w.WriteNumber("events", report.TotalEvents);
        w.WriteNumber("log_flush_start", report.Files.Sum(f => f.FlushStarts));
        w.WriteNumber("log_flush_complete", report.Files.Sum(f => f.FlushCompletes));
        w.WriteNumber("writelog_waits", report.Files.Sum(f => f.WriteLogWaits));
        w.WriteNumber("events_lost", report.TotalLost);
        w.WriteNumber("bytes_skipped", report.TotalBytesSkipped);
        w.WriteNumber("malformed_events", report.TotalMalformed);
        w.WriteEndObject();

        w.WriteStartArray("files");
        foreach (var f in report.Files)
        {
            WriteFile(f, w);
        }

        w.WriteEndArray();
        w.WriteStartArray("skipped");
        foreach (var entry in report.Skipped)
        {
            w.WriteStartObject();
            w.WriteString("path", entry.Path);
            w.WriteString("reason", entry.Reason);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteStartArray("databases");
        foreach (var d in report.Databases)
        {
            WriteDatabase(d, w);
        }

        w.WriteEndArray();
        w.WriteStartArray("signals");
        foreach (var t in report.Signals)
        {
            WriteSignal(t, w);
        }

        w.WriteEndArray();
        w.WriteEndObject();
    }

    /// <summary>A polled signal's table: its columns (name, unit) and rows of cells (string, number or null) in column order.</summary>
    private static void WriteSignal(Core.Signals.SignalTable t, Utf8JsonWriter w)
    {
        w.WriteStartObject();
        w.WriteString("signal", t.Signal);
        w.WriteString("title", t.Title);
        w.WriteStartArray("columns");
        foreach (var c in t.Columns)
        {
            w.WriteStartObject();
            w.WriteString("name", c.Name);
            w.WriteString("unit", c.Unit);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteStartArray("rows");
        foreach (var row in t.Rows)
        {
            w.WriteStartArray();
            foreach (var cell in row)
            {
                switch (cell)
                {
                    case null:
                        w.WriteNullValue();
                        break;
                    case long l:
                        w.WriteNumberValue(l);
                        break;
                    case int i:
                        w.WriteNumberValue(i);
                        break;
                    case double d when double.IsFinite(d):
                        w.WriteNumberValue(Math.Round(d, 6));
                        break;
                    case double:
                        w.WriteNullValue();
                        break;
                    case DateTime time:
                        w.WriteStringValue(time.ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'", System.Globalization.CultureInfo.InvariantCulture));
                        break;
                    default:
                        w.WriteStringValue(Core.Signals.SignalTable.Format(cell));
                        break;
                }
            }

            w.WriteEndArray();
        }

        w.WriteEndArray();
        w.WriteStartArray("notes");
        foreach (var n in t.Notes)
        {
            w.WriteStringValue(n);
        }

        w.WriteEndArray();
        w.WriteEndObject();
    }

    private static void WriteFile(FileReport f, Utf8JsonWriter w)
    {
        w.WriteStartObject();
        w.WriteString("path", f.Path);
        w.WriteNumber("bytes", f.Bytes);
        w.WriteString("status", f.Status switch
        {
            FileStatus.Ok => "ok",
            FileStatus.Corrupt => "corrupt",
            FileStatus.Damaged => "damaged",
            FileStatus.UnsupportedVersion => "unsupported_version",
            _ => "unreadable",
        });
        WriteNullable(w, "error", f.Error);
        WriteNullable(w, "error_offset", f.ErrorOffset);
        w.WriteNumber("events", f.Events);
        w.WriteNumber("log_flush_start", f.FlushStarts);
        w.WriteNumber("log_flush_complete", f.FlushCompletes);
        w.WriteNumber("writelog_waits", f.WriteLogWaits);
        w.WriteNumber("events_lost", f.EventsLost);
        WriteCounts(w, "other_events", f.OtherEvents);
        WriteCounts(w, "other_waits", f.OtherWaits);
        w.WriteNumber("bytes_skipped", f.BytesSkipped);
        w.WriteStartArray("damage");
        foreach (var d in f.Damage)
        {
            w.WriteStartObject();
            w.WriteNumber("offset", d.Offset);
            w.WriteNumber("length", d.Length);
            w.WriteString("problem", d.Problem);
            w.WriteNumber("problem_offset", d.ProblemOffset);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteNumber("malformed_events", f.MalformedEvents);
        w.WriteStartArray("malformed");
        foreach (var m in f.Malformed)
        {
            w.WriteStartObject();
            w.WriteNumber("offset", m.Offset);
            w.WriteString("problem", m.Problem);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteString("tail", f.Tail switch
        {
            XEvent.Binary.XelTailKind.Zeros => "zeros",
            XEvent.Binary.XelTailKind.IncompleteBuffer => "incomplete_buffer",
            _ => "none",
        });
        WriteNullable(w, "tail_offset", f.Tail == XEvent.Binary.XelTailKind.None ? null : f.TailOffset);
        w.WriteNumber("tail_bytes", f.TailBytes);
        w.WriteEndObject();
    }

    private static void WriteDatabase(DatabaseReport d, Utf8JsonWriter w)
    {
        w.WriteStartObject();
        // The instance a recording names (a recording of several instances has a database of each name and id per
        // instance); null for .xel files, which name no instance.
        w.WriteString("instance", d.Instance == AnalyzeRunner.InstanceName ? null : d.Instance);
        w.WriteString("database", d.Database);
        w.WriteNumber("database_id", d.DatabaseId);
        w.WriteNumber("flushes", d.Flushes);
        w.WriteNumber("bytes", d.Bytes);
        WriteNullable(w, "average_flush_bytes", d.AverageFlushBytes);
        w.WriteNumber("single_sector_share", d.SingleSectorShare);
        w.WriteNumber("full_block_share", d.FullBlockShare);
        w.WriteStartArray("write_size_buckets");
        long min = 0;
        for (var i = 0; i < d.Buckets.Count; i++)
        {
            w.WriteStartObject();
            w.WriteNumber("min_bytes", min);
            if (i < WriteSizeBuckets.UpperBounds.Count)
            {
                w.WriteNumber("max_bytes", WriteSizeBuckets.UpperBounds[i]);
                min = WriteSizeBuckets.UpperBounds[i] + 1L;
            }
            else
            {
                w.WriteNull("max_bytes");
            }

            w.WriteNumber("count", d.Buckets[i]);
            w.WriteNumber("share", d.Flushes > 0 ? (double)d.Buckets[i] / d.Flushes : 0);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        WriteDurations(w, "flush_duration_ms", d.FlushDuration);
        WriteDurations(w, "writelog_wait_ms", d.WriteLog);
        if (d.WriteLogBusiestWindow is { } m)
        {
            w.WriteStartObject("writelog_busiest_window");
            w.WriteString("start_utc", m.StartUtc.ToString("O", System.Globalization.CultureInfo.InvariantCulture));
            w.WriteNumber("seconds", m.Length.TotalSeconds);
            w.WriteNumber("covered_seconds", m.Span.TotalSeconds);
            w.WriteNumber("waits", m.Waits);
            w.WriteNumber("wait_seconds", m.WaitSeconds);
            w.WriteNumber("seconds_waiting_per_second", m.PressureSecondsPerSecond);
            w.WriteNumber("mean_ms", m.MeanSeconds * 1000);
            w.WriteEndObject();
        }
        else
        {
            w.WriteNull("writelog_busiest_window");
        }

        w.WriteNumber("writelog_waits_with_application", d.WriteLogWaitsWithApplication);
        w.WriteStartArray("writelog_by_application");
        foreach (var a in d.WriteLogByApplication)
        {
            w.WriteStartObject();
            w.WriteString("application", a.Name);
            w.WriteNumber("waits", a.Waits);
            w.WriteNumber("seconds", a.Seconds);
            w.WriteNumber("share", a.Share);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteNumber("writelog_waits_with_statement", d.WriteLogWaitsWithStatement);
        w.WriteStartArray("writelog_by_statement");
        foreach (var a in d.WriteLogByStatement)
        {
            w.WriteStartObject();
            w.WriteString("query_hash", a.Name);
            WriteNullable(w, "text", a.Text);
            w.WriteNumber("waits", a.Waits);
            w.WriteNumber("seconds", a.Seconds);
            w.WriteNumber("share", a.Share);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        WriteNullable(w, "first_event_utc", d.FirstEventUtc?.ToString("O", System.Globalization.CultureInfo.InvariantCulture));
        WriteNullable(w, "last_event_utc", d.LastEventUtc?.ToString("O", System.Globalization.CultureInfo.InvariantCulture));
        w.WriteNumber("span_seconds", d.SpanSeconds);
        WriteNullable(w, "flushes_per_second", d.FlushesPerSecond);
        WriteBudget(w, d.CommitBudget);
        if (d.Storage is { } storage)
        {
            w.WriteStartObject("storage");
            w.WriteString("standing", storage.Standing.ToString().ToLowerInvariant());
            w.WriteString("text", storage.Text);
            w.WriteEndObject();
        }
        else
        {
            w.WriteNull("storage");
        }

        w.WriteStartArray("advice");
        foreach (var a in d.Advice)
        {
            w.WriteStartObject();
            w.WriteString("code", a.Code);
            w.WriteString("level", a.Level == Core.Advice.AdviceLevel.Warning ? "warning" : "info");
            w.WriteString("text", a.Text);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteEndObject();
    }

    /// <summary>"commit_budget": the parts largest first (seconds waited, where read), the commits and the time per commit, or null.</summary>
    private static void WriteBudget(Utf8JsonWriter w, Core.Aggregation.CommitBudgetSnapshot? b)
    {
        if (b is null)
        {
            w.WriteNull("commit_budget");
            return;
        }

        w.WriteStartObject("commit_budget");
        WriteNullable(w, "commits", b.Commits);
        WriteNullable(w, "per_commit_ms", b.PerCommitSeconds * 1000);
        w.WriteNumber("wait_seconds", b.TotalSeconds);
        WriteNullable(w, "largest_part", b.Largest?.Name);
        w.WriteStartArray("parts");
        foreach (var p in b.Parts)
        {
            w.WriteStartObject();
            w.WriteString("part", p.Name);
            w.WriteNumber("seconds", p.Seconds);
            w.WriteString("source", p.Source == Core.Aggregation.CommitPartSource.Events ? "events" : p.Source.ToString().ToLowerInvariant());
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteEndObject();
    }

    private static void WriteDurations(Utf8JsonWriter w, string name, DurationStats? s)
    {
        if (s is null)
        {
            w.WriteNull(name);
            return;
        }

        w.WriteStartObject(name);
        w.WriteNumber("count", s.Count);
        w.WriteNumber("mean", s.MeanMs);
        WriteNullable(w, "p50", s.P50Ms);
        w.WriteNumber("p95", s.P95Ms);
        WriteNullable(w, "p99", s.P99Ms);
        w.WriteNumber("max", s.MaxMs);
        w.WriteEndObject();
    }

    private static void WriteCounts(Utf8JsonWriter w, string name, IReadOnlyDictionary<string, long> counts)
    {
        w.WriteStartObject(name);
        foreach (var (key, count) in counts.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal))
        {
            w.WriteNumber(key, count);
        }

        w.WriteEndObject();
    }

    private static void WriteNullable(Utf8JsonWriter w, string name, string? value)
    {
        if (value is null)
        {
            w.WriteNull(name);
        }
        else
        {
            w.WriteString(name, value);
        }
    }

    private static void WriteNullable(Utf8JsonWriter w, string name, long? value)
    {
        if (value is { } v)
        {
            w.WriteNumber(name, v);
        }
        else
        {
            w.WriteNull(name);
        }
    }

    private static void WriteNullable(Utf8JsonWriter w, string name, double? value)
    {
        if (value is { } v && double.IsFinite(v))
        {
            w.WriteNumber(name, v);
        }
        else
        {
            w.WriteNull(name);
        }
    }
}

using System.Globalization;
using System.Text;
using System.Text.Json;

namespace LogFlushMonitor.Analysis.Compare;

/// <summary>Writes a comparison as one JSON document (schema in docs/compare.md).</summary>
internal static class CompareJsonWriter
{
    /// <summary>Version of the document's schema.</summary>
    public const int SchemaVersion = 1;

    /// <summary>Writes <paramref name="comparison"/> to <paramref name="output"/> with the process's <paramref name="exitCode"/>.</summary>
    public static void Write(Comparison comparison, int exitCode, TextWriter output)
    {
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            w.WriteStartObject();
            w.WriteNumber("schema_version", SchemaVersion);
            w.WriteNumber("exit_code", exitCode);
            Side(w, "before", comparison.Before);
            Side(w, "after", comparison.After);
            w.WriteStartArray("databases");
            foreach (var db in comparison.Databases)
            {
                w.WriteStartObject();
                w.WriteString("instance", db.Instance);
                w.WriteString("database", db.Database);
                w.WriteStartArray("figures");
                foreach (var f in db.Figures)
                {
                    w.WriteStartObject();
                    w.WriteString("name", f.Name);
                    w.WriteString("unit", f.Unit);
                    Number(w, "before", f.Before);
                    Number(w, "after", f.After);
                    Number(w, "change_percent", f.ChangePercent);
                    w.WriteEndObject();
                }

                w.WriteEndArray();
                w.WriteStartObject("verdict");
                w.WriteStartArray("codes");
                foreach (var c in db.Verdict.Codes)
                {
                    w.WriteStringValue(c);
                }

                w.WriteEndArray();
                w.WriteString("text", db.Verdict.Text);
                w.WriteEndObject();
                w.WriteEndObject();
            }

            w.WriteEndArray();
            Keys(w, "only_before", comparison.OnlyBefore);
            Keys(w, "only_after", comparison.OnlyAfter);
            w.WriteEndObject();
        }

        output.WriteLine(Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length));
    }

    private static void Side(Utf8JsonWriter w, string name, CompareSide side)
    {
        w.WriteStartObject(name);
        w.WriteStartArray("inputs");
        foreach (var i in side.Inputs)
        {
            w.WriteStringValue(i);
        }

        w.WriteEndArray();
        if (side.Window.IsAll)
        {
            w.WriteNull("window");
        }
        else
        {
            w.WriteString("window", side.Window.Text);
        }

        w.WriteNumber("files", side.Report.Files.Count);
        w.WriteNumber("events", side.Report.TotalEvents);
        w.WriteNumber("seconds", Math.Round(side.Seconds, 3));
        if (side.Span is var (first, last))
        {
            w.WriteString("first_event_utc", first.ToString("O", CultureInfo.InvariantCulture));
            w.WriteString("last_event_utc", last.ToString("O", CultureInfo.InvariantCulture));
        }
        else
        {
            w.WriteNull("first_event_utc");
            w.WriteNull("last_event_utc");
        }

        w.WriteString("outcome", side.Report.Outcome switch
        {
            AnalyzeOutcome.Analysed => "analysed",
            AnalyzeOutcome.NoRelevantEvents => "no_relevant_events",
            AnalyzeOutcome.CorruptInput => "corrupt_input",
            _ => "failed",
        });
        w.WriteEndObject();
    }

    private static void Keys(Utf8JsonWriter w, string name, IReadOnlyList<(string Instance, string Database)> keys)
    {
        w.WriteStartArray(name);
        foreach (var (instance, database) in keys)
        {
            w.WriteStartObject();
            w.WriteString("instance", instance);
            w.WriteString("database", database);
            w.WriteEndObject();
        }

        w.WriteEndArray();
    }

    private static void Number(Utf8JsonWriter w, string name, double? value)
    {
        if (value is { } v && double.IsFinite(v))
        {
            w.WriteNumber(name, Math.Round(v, 6));
        }
        else
        {
            w.WriteNull(name);
        }
    }
}

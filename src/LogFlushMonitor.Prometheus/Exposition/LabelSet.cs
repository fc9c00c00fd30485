using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>Label value formatting and the rare path where two attribute keys sanitise to one label name.</summary>
internal static class LabelSet
{
    // Label values are not HTML: keep quotes and non-ASCII readable instead of \u0022 escapes.
    private static readonly JsonSerializerOptions ArrayJson = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>Writes an attribute value, escaped for a label value, without allocating for the common types.</summary>
    public static void WriteValue(object? value, Utf8TextBuffer output)
    {
        switch (value)
        {
            case null:
                break;
            case string s:
                output.WriteEscaped(s, escapeQuote: true);
                break;
            case bool b:
                output.Write(b ? "true"u8 : "false"u8);
                break;
            case long l:
                output.WriteLong(l);
                break;
            case int i:
                output.WriteLong(i);
                break;
            case short or ushort or byte or sbyte or uint:
                output.WriteLong(Convert.ToInt64(value, CultureInfo.InvariantCulture));
                break;
            case double d:
                output.WriteDouble(d);
                break;
            case float f:
                output.WriteDouble(f);
                break;
            default:
                output.WriteEscaped(Format(value), escapeQuote: true);
                break;
        }
    }

    /// <summary>
    /// Writes labels (no braces) merging keys that sanitise to the same name: values joined with <c>;</c>
    /// in the ordinal order of the original keys, as the specification requires.
    /// </summary>
    public static void WriteMerged(IReadOnlyList<KeyValuePair<string, object?>> pairs, Utf8TextBuffer output)
    {
        var groups = pairs
            .OrderBy(p => p.Key, StringComparer.Ordinal)
            .GroupBy(p => PrometheusNames.SanitizeLabelName(p.Key), StringComparer.Ordinal);
        var first = true;
        foreach (var group in groups)
        {
            if (!first)
            {
                output.Write((byte)',');
            }

            first = false;
            output.Write(Encoding.UTF8.GetBytes(group.Key));
            output.Write("=\""u8);
            var firstValue = true;
            foreach (var pair in group)
            {
                if (!firstValue)
                {
                    output.Write((byte)';');
                }

                firstValue = false;
                WriteValue(pair.Value, output);
            }

            output.Write((byte)'"');
        }
    }

    private static string Format(object value) => value switch
    {
        // Non-string attribute values become strings per the attribute specification: arrays as JSON.
        Array array => JsonSerializer.Serialize(array, array.GetType(), ArrayJson),
        IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? string.Empty,
    };
}

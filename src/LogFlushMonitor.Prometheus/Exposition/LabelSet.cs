using System.Globalization;
using System.Text;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>Label value formatting and the rare path where two attribute keys sanitise to one label name.</summary>
internal static class LabelSet
{
    /// <summary>
    /// Writes an attribute value, escaped for a text label value (or as it is, for protobuf, when
    /// <paramref name="escape"/> is false), without allocating for the common types.
    /// </summary>
    public static void WriteValue(object? value, Utf8TextBuffer output, bool escape = true)
    {
        switch (value)
        {
            case null:
                break;
            case string s when escape:
                output.WriteEscaped(s, escapeQuote: true);
                break;
            case string s:
                output.WriteUtf8(s);
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
            case object when escape:
                output.WriteEscaped(Format(value), escapeQuote: true);
                break;
            default:
                output.WriteUtf8(Format(value));
                break;
        }
    }

    /// <summary>
    /// The protobuf form of <see cref="WriteMerged"/>: each label as an encoded <c>LabelPair</c> field
    /// <paramref name="field"/>, keys that sanitise to one name merged the same way.
    /// </summary>
    public static void WriteMergedPairs(IReadOnlyList<KeyValuePair<string, object?>> pairs, int field, Utf8TextBuffer output)
    {
        var groups = pairs
            .OrderBy(p => p.Key, StringComparer.Ordinal)
            .GroupBy(p => PrometheusNames.SanitizeLabelName(p.Key), StringComparer.Ordinal);
        using var value = new Utf8TextBuffer(256);
        foreach (var group in groups)
        {
            value.Clear();
            var firstValue = true;
            foreach (var pair in group)
            {
                if (!firstValue)
                {
                    value.Write((byte)';');
                }

                firstValue = false;
                WriteValue(pair.Value, value, escape: false);
            }

            Protobuf.WriteLabelPair(output, field, Encoding.UTF8.GetBytes(group.Key), value.WrittenSpan);
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
        Array array => JsonArray(array),
        IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? string.Empty,
    };

    /// <summary>
    /// An array attribute as a JSON array, written by hand (no reflection, so trimming and NativeAOT keep it
    /// working). Strings are escaped as JSON requires and no more: label values are not HTML, so quotes stay
    /// <c>\"</c> and non-ASCII stays readable. Non-finite floating-point values, which JSON cannot carry as
    /// numbers, are written as the strings <c>"NaN"</c>, <c>"Infinity"</c>, <c>"-Infinity"</c>.
    /// </summary>
    internal static string JsonArray(Array array)
    {
        var json = new StringBuilder("[");
        var first = true;
        foreach (var item in array)
        {
            if (!first)
            {
                json.Append(',');
            }

            first = false;
            AppendJson(json, item);
        }

        return json.Append(']').ToString();
    }

    private static void AppendJson(StringBuilder json, object? item)
    {
        switch (item)
        {
            case null:
                json.Append("null");
                break;
            case bool b:
                json.Append(b ? "true" : "false");
                break;
            case double d when !double.IsFinite(d):
                AppendJsonString(json, d.ToString(CultureInfo.InvariantCulture));
                break;
            case float f when !float.IsFinite(f):
                AppendJsonString(json, f.ToString(CultureInfo.InvariantCulture));
                break;
            case double or float or decimal or long or int or short or sbyte or ulong or uint or ushort or byte:
                json.Append(((IFormattable)item).ToString(null, CultureInfo.InvariantCulture));
                break;
            case string s:
                AppendJsonString(json, s);
                break;
            case Array nested:
                json.Append(JsonArray(nested));
                break;
            default:
                AppendJsonString(json, item is IFormattable formattable ? formattable.ToString(null, CultureInfo.InvariantCulture) : item.ToString() ?? string.Empty);
                break;
        }
    }

    private static void AppendJsonString(StringBuilder json, string value)
    {
        json.Append('"');
        foreach (var c in value)
        {
            switch (c)
            {
                case '"':
                    json.Append("\\\"");
                    break;
                case '\\':
                    json.Append("\\\\");
                    break;
                case '\n':
                    json.Append("\\n");
                    break;
                case '\r':
                    json.Append("\\r");
                    break;
                case '\t':
                    json.Append("\\t");
                    break;
                case '\b':
                    json.Append("\\b");
                    break;
                case '\f':
                    json.Append("\\f");
                    break;
                case < ' ':
                    json.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                    break;
                default:
                    json.Append(c);
                    break;
            }
        }

        json.Append('"');
    }
}

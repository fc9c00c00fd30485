using System.Globalization;
using System.Text;

namespace LogFlushMonitor.Core.Text;

/// <summary>
/// The one function that makes text from servers, files and recordings (instance, database, application, session and
/// file names, event and wait names, server messages) safe to print to a terminal or a log line: every character that
/// could act instead of show is written as an escape. A newline becomes <c>\n</c>, a carriage return <c>\r</c>, a tab
/// <c>\t</c>, ESC <c>\u001B</c> (so no escape sequence clears the screen, sets the window title or forges a line), and
/// so do the other C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional overrides (which
/// would make a name display as other text). Everything else stays as it is, backslashes included (<c>HOST\INSTANCE</c>
/// names are common). Used by <c>analyze</c>'s and <c>report</c>'s text output, <c>check</c>, <c>workload</c> and every
/// log line (the log's escaping enricher).
/// </summary>
public static class PrintableText
{
    /// <summary>Whether <paramref name="c"/> must not reach a terminal or a log line as it is.</summary>
    public static bool NeedsEscape(char c) =>
        char.IsControl(c) || c is '\u2028' or '\u2029' || c is >= '\u202A' and <= '\u202E' || c is >= '\u2066' and <= '\u2069' || c is '\u200E' or '\u200F' or '\u061C';

    /// <summary><paramref name="text"/> with every character <see cref="NeedsEscape"/> names written as an escape (the same string when there is none).</summary>
    public static string Of(string? text)
    {
        if (string.IsNullOrEmpty(text))
        {
            return text ?? "";
        }

        var span = text.AsSpan();
        var clean = true;
        foreach (var c in span)
        {
            if (NeedsEscape(c))
            {
                clean = false;
                break;
            }
        }

        if (clean)
        {
            return text;
        }

        var sb = new StringBuilder(text.Length + 16);
        foreach (var c in span)
        {
            _ = c switch
            {
                '\n' => sb.Append("\\n"),
                '\r' => sb.Append("\\r"),
                '\t' => sb.Append("\\t"),
                _ when NeedsEscape(c) => sb.Append("\\u").Append(((int)c).ToString("X4", CultureInfo.InvariantCulture)),
                _ => sb.Append(c),
            };
        }

        return sb.ToString();
    }
}

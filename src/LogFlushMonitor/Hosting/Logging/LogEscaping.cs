using System.Text;
using LogFlushMonitor.Core.Text;
using Serilog.Core;
using Serilog.Events;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Escapes control characters in every property value of a log event before any sink sees it: names come from
/// servers, files and recordings (an instance, database or session name may hold a newline or an ANSI escape), and
/// must never reach the log as structure (a forged line) or the terminal as commands. A newline becomes <c>\n</c>,
/// ESC <c>\u001B</c>; text and JSON output both show the escaped form. Backslashes stay as they are
/// (<c>HOST\INSTANCE</c> names are common).
/// </summary>
/// <remarks>
/// Exceptions: the JSON formatter escapes them as JSON strings. For text output (<paramref name="exceptionText"/>) the
/// enricher adds <see cref="ExceptionTextProperty"/>, which the text template renders instead of the exception itself:
/// its lines as <see cref="Exception.ToString"/> gives them, with every exception's message escaped whole (a message
/// quoting a server's or a file's name cannot start a line of its own) and any other control character escaped
/// (stack trace line breaks stay).
/// </remarks>
/// <param name="exceptionText">Whether to add <see cref="ExceptionTextProperty"/> (text output).</param>
internal sealed class LogEscaping(bool exceptionText = false) : ILogEventEnricher
{
    /// <summary>The property the text template renders in place of the exception.</summary>
    public const string ExceptionTextProperty = "ExceptionText";

    /// <inheritdoc />
    public void Enrich(LogEvent logEvent, ILogEventPropertyFactory propertyFactory)
    {
        List<LogEventProperty>? changed = null;
        foreach (var (name, value) in logEvent.Properties)
        {
            if (Escape(value) is { } escaped)
            {
                (changed ??= []).Add(new LogEventProperty(name, escaped));
            }
        }

        if (changed is not null)
        {
            foreach (var property in changed)
            {
                logEvent.AddOrUpdateProperty(property);
            }
        }

        // Added after the loop above, which would escape its line breaks too.
        if (exceptionText && logEvent.Exception is { } exception)
        {
            logEvent.AddOrUpdateProperty(new LogEventProperty(ExceptionTextProperty, new ScalarValue(EscapeException(exception) + Environment.NewLine)));
        }
    }

    /// <summary>Whether <paramref name="c"/> must not reach a log line as it is (<see cref="PrintableText.NeedsEscape"/>).</summary>
    internal static bool NeedsEscape(char c) => PrintableText.NeedsEscape(c);

    /// <summary><paramref name="text"/> with every character <see cref="NeedsEscape"/> names written as an escape: the one function terminals use too (<see cref="PrintableText.Of"/>).</summary>
    internal static string Escape(string text) => PrintableText.Of(text);

    /// <summary>
    /// <paramref name="exception"/>'s text with each message of its chain (inner and aggregated exceptions included)
    /// escaped whole, then every control character but the line breaks and tabs of the stack traces.
    /// </summary>
    internal static string EscapeException(Exception exception)
    {
        var text = exception.ToString();
        var seen = new HashSet<Exception>(ReferenceEqualityComparer.Instance);
        var pending = new Stack<Exception>([exception]);
        while (pending.TryPop(out var e))
        {
            if (!seen.Add(e))
            {
                continue;
            }

            var message = e.Message;
            if (message.Length > 0 && Escape(message) is var escaped && !ReferenceEquals(escaped, message))
            {
                text = text.Replace(message, escaped, StringComparison.Ordinal);
            }

            if (e is AggregateException aggregate)
            {
                foreach (var inner in aggregate.InnerExceptions)
                {
                    pending.Push(inner);
                }
            }
            else if (e.InnerException is { } inner)
            {
                pending.Push(inner);
            }
        }

        // Exceptions are rare: a plain loop is enough.
        var sb = new StringBuilder(text.Length + 16);
        foreach (var c in text)
        {
            _ = c is '\n' or '\r' or '\t' || !NeedsEscape(c)
                ? sb.Append(c)
                : sb.Append("\\u").Append(((int)c).ToString("X4", System.Globalization.CultureInfo.InvariantCulture));
        }

        return sb.ToString();
    }

    /// <summary>The escaped value, or null when nothing in it needed escaping.</summary>
    private static LogEventPropertyValue? Escape(LogEventPropertyValue value)
    {
        switch (value)
        {
            case ScalarValue { Value: string s }:
                var escaped = Escape(s);
                return ReferenceEquals(escaped, s) ? null : new ScalarValue(escaped);
            case SequenceValue sequence:
                return EscapeAll(sequence.Elements, out var elements) ? new SequenceValue(elements) : null;
            case StructureValue structure:
                var properties = structure.Properties.Select(p => (p, Escaped: Escape(p.Value))).ToList();
                return properties.Any(p => p.Escaped is not null)
                    ? new StructureValue(properties.Select(p => new LogEventProperty(p.p.Name, p.Escaped ?? p.p.Value)), structure.TypeTag)
                    : null;
            case DictionaryValue dictionary:
                var entries = dictionary.Elements.Select(kv => (Key: Escape(kv.Key), Value: Escape(kv.Value), Original: kv)).ToList();
                return entries.Any(e => e.Key is not null || e.Value is not null)
                    ? new DictionaryValue(entries.Select(e => new KeyValuePair<ScalarValue, LogEventPropertyValue>((ScalarValue?)e.Key ?? e.Original.Key, e.Value ?? e.Original.Value)))
                    : null;
            default:
                return null;
        }
    }

    private static bool EscapeAll(IReadOnlyList<LogEventPropertyValue> values, out List<LogEventPropertyValue> escaped)
    {
        escaped = new List<LogEventPropertyValue>(values.Count);
        var any = false;
        foreach (var v in values)
        {
            var e = Escape(v);
            any |= e is not null;
            escaped.Add(e ?? v);
        }

        return any;
    }
}

namespace LogFlushMonitor.Core.Text;

/// <summary>
/// The part of a statement's text the monitor shows (the log, <c>analyze</c>, <c>report</c>, <c>check</c>; never a metric
/// label): its first <see cref="MaxLength"/> characters, without the parameter declarations SQL Server puts before a
/// parameterized statement (<c>(@p0 int,@p1 nvarchar(4000))INSERT ...</c>), with runs of white space made one space.
/// Query Store keeps no parameter values; what a statement's text holds besides its shape are the literals of an
/// unparameterized statement, which is why <c>Sources:SqlServer:StatementText</c> can turn text off entirely.
/// </summary>
public static class StatementText
{
    /// <summary>Characters kept.</summary>
    public const int MaxLength = 200;

    /// <summary>
    /// <paramref name="text"/> cut as described, or null for null or blank text. Not escaped for a terminal: printing goes
    /// through <see cref="PrintableText.Of"/>.
    /// </summary>
    public static string? Shorten(string? text)
    {
        if (string.IsNullOrWhiteSpace(text))
        {
            return null;
        }

        var span = text.AsSpan().TrimStart();
        if (span.Length > 1 && span[0] == '(' && span[1] == '@')
        {
            // The declarations end at the parenthesis that closes the first one (types hold parentheses: nvarchar(4000)).
            var depth = 0;
            for (var i = 0; i < span.Length; i++)
            {
                depth += span[i] == '(' ? 1 : span[i] == ')' ? -1 : 0;
                if (depth == 0)
                {
                    span = span[(i + 1)..].TrimStart();
                    break;
                }
            }
        }

        var sb = new System.Text.StringBuilder(Math.Min(span.Length, MaxLength));
        var space = false;
        foreach (var c in span)
        {
            if (sb.Length == MaxLength)
            {
                break;
            }

            if (char.IsWhiteSpace(c))
            {
                space = sb.Length > 0;
                continue;
            }

            if (space)
            {
                sb.Append(' ');
                space = false;
                if (sb.Length == MaxLength)
                {
                    break;
                }
            }

            sb.Append(c);
        }

        // Never end on half of a surrogate pair.
        if (sb.Length > 0 && char.IsHighSurrogate(sb[^1]))
        {
            sb.Length--;
        }

        return sb.Length == 0 ? null : sb.ToString();
    }
}

using System.Globalization;
using System.Net;
using System.Text;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The Markdown our own pages use (README.md, docs/*.md), as HTML: headings with the anchors GitHub gives them (so a
/// runbook link <c>alerts.md#sqlserverwritelogspike</c> lands on its section here as it does there), paragraphs,
/// bullet and numbered lists (nested by indentation), pipe tables, fenced code, inline code, emphasis, links, images
/// and autolinks. Not a general Markdown implementation: HTML in the source is shown as text, never passed through.
/// </summary>
internal static partial class MarkdownHtml
{
    /// <summary>
    /// Renders <paramref name="markdown"/>. <paramref name="link"/> maps each link or image target as written to the
    /// href to use, or null to show the link's text without a link (a file this server does not serve).
    /// </summary>
    public static string Render(string markdown, Func<string, string?> link)
    {
        ArgumentNullException.ThrowIfNull(markdown);
        var lines = markdown.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        var html = new StringBuilder();
        var slugs = new Dictionary<string, int>(StringComparer.Ordinal);
        Blocks(lines, html, link, slugs);
        return html.ToString();
    }

    /// <summary>The first level-1 heading's text, or null.</summary>
    public static string? Title(string markdown)
    {
        ArgumentNullException.ThrowIfNull(markdown);
        foreach (var line in markdown.Split('\n'))
        {
            if (line.StartsWith("# ", StringComparison.Ordinal))
            {
                return PlainText(line[2..].Trim());
            }
        }

        return null;
    }

    /// <summary>
    /// Every heading's anchor, in order, as GitHub makes them: the heading's text (code kept, link text kept, emphasis
    /// marks dropped) in lower case, without punctuation or symbols (letters, digits, '-', '_' and spaces stay), spaces
    /// turned into '-'; a repeated one gets -1, -2, ...
    /// </summary>
    public static IReadOnlyList<string> Anchors(string markdown)
    {
        ArgumentNullException.ThrowIfNull(markdown);
        var slugs = new Dictionary<string, int>(StringComparer.Ordinal);
        var anchors = new List<string>();
        var fenced = false;
        foreach (var line in markdown.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n'))
        {
            if (FenceRegex().IsMatch(line))
            {
                fenced = !fenced;
                continue;
            }

            if (!fenced && HeadingRegex().Match(line) is { Success: true } h)
            {
                anchors.Add(UniqueSlug(h.Groups["text"].Value, slugs));
            }
        }

        return anchors;
    }

    /// <summary>GitHub's anchor of one heading's text (without the de-duplication suffix).</summary>
    public static string Slug(string headingText)
    {
        var text = PlainText(headingText).ToLowerInvariant();
        var slug = new StringBuilder(text.Length);
        foreach (var c in text)
        {
            if (c == ' ')
            {
                slug.Append('-');
            }
            else if (char.IsLetterOrDigit(c) || c is '-' or '_' || CharUnicodeInfo.GetUnicodeCategory(c) is UnicodeCategory.NonSpacingMark or UnicodeCategory.SpacingCombiningMark)
            {
                slug.Append(c);
            }
        }

        return slug.ToString();
    }

    private static string UniqueSlug(string headingText, Dictionary<string, int> slugs)
    {
        var slug = Slug(headingText);
        if (slugs.TryGetValue(slug, out var n))
        {
            slugs[slug] = n + 1;
            return $"{slug}-{n + 1}";
        }

        slugs[slug] = 0;
        return slug;
    }

    /// <summary>A heading's or title's text as a reader sees it: code kept, link text kept, emphasis marks dropped.</summary>
    private static string PlainText(string inline)
    {
        var text = LinkRegex().Replace(inline, m => m.Groups["text"].Value);
        return text.Replace("**", "", StringComparison.Ordinal).Replace("`", "", StringComparison.Ordinal);
    }

    private static void Blocks(IReadOnlyList<string> lines, StringBuilder html, Func<string, string?> link, Dictionary<string, int> slugs)
    {
        var i = 0;
        while (i < lines.Count)
        {
            var line = lines[i];
            if (line.Trim().Length == 0)
            {
                i++;
                continue;
            }

            if (FenceRegex().Match(line) is { Success: true } fence)
            {
                var indent = fence.Groups["indent"].Value.Length;
                var language = fence.Groups["lang"].Value;
                var code = new StringBuilder();
                i++;
                while (i < lines.Count && !FenceRegex().IsMatch(lines[i]))
                {
                    code.Append(Dedent(lines[i], indent)).Append('\n');
                    i++;
                }

                i++; // the closing fence
                html.Append(language.Length > 0 ? $"<pre><code class=\"language-{Encode(language)}\">" : "<pre><code>")
                    .Append(Encode(code.ToString())).Append("</code></pre>\n");
                continue;
            }

            if (HeadingRegex().Match(line) is { Success: true } heading)
            {
                var level = heading.Groups["hashes"].Value.Length;
                var text = heading.Groups["text"].Value;
                var id = UniqueSlug(text, slugs);
                html.Append(CultureInfo.InvariantCulture, $"<h{level} id=\"{Encode(id)}\">{Inline(text, link)} <a class=\"anchor\" href=\"#{Encode(id)}\">#</a></h{level}>\n");
                i++;
                continue;
            }

            if (line.TrimStart().StartsWith("<!--", StringComparison.Ordinal))
            {
                while (i < lines.Count && !lines[i].Contains("-->", StringComparison.Ordinal))
                {
                    i++;
                }

                i++;
                continue;
            }

            if (IsTableStart(lines, i))
            {
                i = Table(lines, i, html, link);
                continue;
            }

            if (ListItemRegex().IsMatch(line))
            {
                i = List(lines, i, html, link, slugs);
                continue;
            }

            // A paragraph: lines up to a blank line or the start of another block.
            var paragraph = new List<string>();
            while (i < lines.Count && lines[i].Trim().Length > 0
                && (paragraph.Count == 0 || !StartsBlock(lines, i)))
            {
                paragraph.Add(lines[i].Trim());
                i++;
            }

            html.Append("<p>").Append(Inline(string.Join("\n", paragraph), link)).Append("</p>\n");
        }
    }

    private static bool StartsBlock(IReadOnlyList<string> lines, int i) =>
        FenceRegex().IsMatch(lines[i]) || HeadingRegex().IsMatch(lines[i]) || ListItemRegex().IsMatch(lines[i]) || IsTableStart(lines, i);

    private static bool IsTableStart(IReadOnlyList<string> lines, int i) =>
        lines[i].TrimStart().StartsWith('|') && i + 1 < lines.Count && TableSeparatorRegex().IsMatch(lines[i + 1]);

    private static int Table(IReadOnlyList<string> lines, int i, StringBuilder html, Func<string, string?> link)
    {
        html.Append("<table>\n<thead><tr>");
        foreach (var cell in Cells(lines[i]))
        {
            html.Append("<th>").Append(Inline(cell, link)).Append("</th>");
        }

        html.Append("</tr></thead>\n<tbody>\n");
        i += 2;
        while (i < lines.Count && lines[i].TrimStart().StartsWith('|'))
        {
            html.Append("<tr>");
            foreach (var cell in Cells(lines[i]))
            {
                html.Append("<td>").Append(Inline(cell, link)).Append("</td>");
            }

            html.Append("</tr>\n");
            i++;
        }

        html.Append("</tbody>\n</table>\n");
        return i;
    }

    /// <summary>The cells of a table row: split at '|' outside code spans; "\|" is a '|' inside a cell.</summary>
    private static List<string> Cells(string row)
    {
        var text = row.Trim();
        if (text.StartsWith('|'))
        {
            text = text[1..];
        }

        if (text.EndsWith('|') && !text.EndsWith("\\|", StringComparison.Ordinal))
        {
            text = text[..^1];
        }

        var cells = new List<string>();
        var current = new StringBuilder();
        var inCode = false;
        for (var k = 0; k < text.Length; k++)
        {
            var c = text[k];
            if (c == '\\' && k + 1 < text.Length && text[k + 1] == '|')
            {
                current.Append('|');
                k++;
            }
            else if (c == '`')
            {
                inCode = !inCode;
                current.Append(c);
            }
            else if (c == '|' && !inCode)
            {
                cells.Add(current.ToString().Trim());
                current.Clear();
            }
            else
            {
                current.Append(c);
            }
        }

        cells.Add(current.ToString().Trim());
        return cells;
    }

    private static int List(IReadOnlyList<string> lines, int i, StringBuilder html, Func<string, string?> link, Dictionary<string, int> slugs)
    {
        var first = ListItemRegex().Match(lines[i]);
        var indent = first.Groups["indent"].Value.Length;
        var ordered = char.IsAsciiDigit(first.Groups["marker"].Value[0]);
        html.Append(ordered ? "<ol>\n" : "<ul>\n");
        while (i < lines.Count && ListItemRegex().Match(lines[i]) is { Success: true } item
            && item.Groups["indent"].Value.Length == indent && char.IsAsciiDigit(item.Groups["marker"].Value[0]) == ordered)
        {
            // The item's lines: its first, then every line indented past the marker (or a lazy continuation of its
            // paragraph), blank lines included when the item goes on after them.
            var content = item.Groups["indent"].Value.Length + item.Groups["marker"].Value.Length + 1;
            var body = new List<string> { lines[i][content..] };
            i++;
            while (i < lines.Count)
            {
                var next = lines[i];
                if (next.Trim().Length == 0)
                {
                    var j = i;
                    while (j < lines.Count && lines[j].Trim().Length == 0)
                    {
                        j++;
                    }

                    if (j < lines.Count && Indentation(lines[j]) >= content)
                    {
                        for (; i < j; i++)
                        {
                            body.Add("");
                        }

                        continue;
                    }

                    break;
                }

                if (Indentation(next) >= content)
                {
                    body.Add(Dedent(next, content));
                }
                else if (!StartsBlock(lines, i) && body[^1].Trim().Length > 0)
                {
                    body.Add(next.Trim()); // a lazy continuation line of the item's paragraph
                }
                else
                {
                    break;
                }

                i++;
            }

            var inner = new StringBuilder();
            Blocks(body, inner, link, slugs);
            var rendered = inner.ToString();
            // A one-paragraph item reads as a line, not a paragraph.
            if (rendered.StartsWith("<p>", StringComparison.Ordinal) && rendered.IndexOf("<p>", 1, StringComparison.Ordinal) < 0)
            {
                rendered = rendered.Replace("<p>", "", StringComparison.Ordinal).Replace("</p>\n", "\n", StringComparison.Ordinal);
            }

            html.Append("<li>").Append(rendered.TrimEnd('\n')).Append("</li>\n");
            while (i < lines.Count && lines[i].Trim().Length == 0 && i + 1 < lines.Count && ListItemRegex().Match(lines[i + 1]) is { Success: true } again
                && again.Groups["indent"].Value.Length == indent)
            {
                i++; // a blank line between two items of the same list
            }
        }

        html.Append(ordered ? "</ol>\n" : "</ul>\n");
        return i;
    }

    private static int Indentation(string line) => line.Length - line.TrimStart(' ').Length;

    private static string Dedent(string line, int indent) =>
        line[Math.Min(indent, Indentation(line))..];

    /// <summary>Inline Markdown: code spans, images, links, autolinks, strong and emphasis; everything else is text.</summary>
    private static string Inline(string text, Func<string, string?> link)
    {
        var html = new StringBuilder(text.Length + 16);
        var strong = false;
        for (var i = 0; i < text.Length;)
        {
            var c = text[i];
            if (c == '\\' && i + 1 < text.Length && char.IsAsciiLetterOrDigit(text[i + 1]) is false && text[i + 1] != ' ')
            {
                html.Append(Encode(text[i + 1].ToString()));
                i += 2;
                continue;
            }

            if (c == '`')
            {
                var run = 1;
                while (i + run < text.Length && text[i + run] == '`')
                {
                    run++;
                }

                var close = text.IndexOf(new string('`', run), i + run, StringComparison.Ordinal);
                if (close > 0)
                {
                    var code = text[(i + run)..close];
                    if (run > 1 && code.StartsWith(' ') && code.EndsWith(' ') && code.Trim().Length > 0)
                    {
                        code = code[1..^1];
                    }

                    html.Append("<code>").Append(Encode(code.Replace('\n', ' '))).Append("</code>");
                    i = close + run;
                    continue;
                }
            }

            if ((c == '[' || (c == '!' && i + 1 < text.Length && text[i + 1] == '[')) && LinkRegex().Match(text, i) is { Success: true } m && m.Index == i)
            {
                var target = m.Groups["target"].Value;
                var href = link(target);
                if (m.Groups["image"].Success)
                {
                    html.Append(href is null
                        ? Encode(m.Groups["text"].Value)
                        : $"<img src=\"{Encode(href)}\" alt=\"{Encode(m.Groups["text"].Value)}\">");
                }
                else
                {
                    var label = Inline(m.Groups["text"].Value, link);
                    html.Append(href is null ? label : $"<a href=\"{Encode(href)}\">{label}</a>");
                }

                i += m.Length;
                continue;
            }

            if (c == '<' && AutolinkRegex().Match(text, i) is { Success: true } auto && auto.Index == i)
            {
                var url = auto.Groups["url"].Value;
                html.Append(CultureInfo.InvariantCulture, $"<a href=\"{Encode(url)}\">{Encode(url)}</a>");
                i += auto.Length;
                continue;
            }

            if (c == '*' && i + 1 < text.Length && text[i + 1] == '*')
            {
                html.Append(strong ? "</strong>" : "<strong>");
                strong = !strong;
                i += 2;
                continue;
            }

            if (c == '*' && i + 1 < text.Length && text[i + 1] != ' ' && (i == 0 || !char.IsLetterOrDigit(text[i - 1])))
            {
                var close = text.IndexOf('*', i + 1);
                if (close > i + 1 && text[close - 1] != ' ' && (close + 1 >= text.Length || !char.IsLetterOrDigit(text[close + 1])))
                {
                    html.Append("<em>").Append(Inline(text[(i + 1)..close], link)).Append("</em>");
                    i = close + 1;
                    continue;
                }
            }

            html.Append(Encode(c.ToString()));
            i++;
        }

        if (strong)
        {
            html.Append("</strong>");
        }

        return html.ToString();
    }

    private static string Encode(string text) => WebUtility.HtmlEncode(text);

    [GeneratedRegex(@"^(?<indent> *)```(?<lang>[A-Za-z0-9+-]*)\s*$")]
    private static partial Regex FenceRegex();

    [GeneratedRegex(@"^(?<hashes>#{1,6}) +(?<text>.+?)\s*$")]
    private static partial Regex HeadingRegex();

    [GeneratedRegex(@"^(?<indent> *)(?<marker>[-*]|\d+\.) ")]
    private static partial Regex ListItemRegex();

    [GeneratedRegex(@"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")]
    private static partial Regex TableSeparatorRegex();

    [GeneratedRegex(@"(?<image>!)?\[(?<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]\((?<target>[^()\s]+)\)")]
    private static partial Regex LinkRegex();

    [GeneratedRegex(@"<(?<url>https?://[^\s<>]+)>")]
    private static partial Regex AutolinkRegex();
}

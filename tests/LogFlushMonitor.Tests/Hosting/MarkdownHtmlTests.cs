using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The Markdown of our pages as the monitor serves it at /docs/: GitHub's heading anchors (what every runbook link and
/// every '#' link between the pages was written against), links kept only where they lead somewhere, HTML never passed
/// through.
/// </summary>
public class MarkdownHtmlTests
{
    [Theory]
    [InlineData("SqlServerWritelogSpike", "sqlserverwritelogspike")]
    [InlineData("Measured on `run --simulate writelog-spike`", "measured-on-run---simulate-writelog-spike")]
    [InlineData("Native build (issue 11)", "native-build-issue-11")]
    [InlineData(".NET tool", "net-tool")]
    [InlineData("`logflushmonitor report`: the same analysis as an HTML page", "logflushmonitor-report-the-same-analysis-as-an-html-page")]
    [InlineData("End to end, in virtual time and through Alertmanager", "end-to-end-in-virtual-time-and-through-alertmanager")]
    [InlineData("Now: is anything wrong, and where?", "now-is-anything-wrong-and-where")]
    [InlineData("[A link](x.md) and **bold**", "a-link-and-bold")]
    public void A_heading_s_anchor_is_GitHub_s(string heading, string anchor) => Assert.Equal(anchor, MarkdownHtml.Slug(heading));

    [Fact]
    public void A_repeated_heading_gets_a_numbered_anchor_and_headings_in_code_are_not_headings()
    {
        var markdown = "# Page\n\n## Check\n\n```\n# not a heading\n```\n\n## Check\n";
        Assert.Equal(["page", "check", "check-1"], MarkdownHtml.Anchors(markdown));
        var html = MarkdownHtml.Render(markdown, t => t);
        Assert.Contains("<h2 id=\"check-1\">", html, StringComparison.Ordinal);
        Assert.Contains("<pre><code># not a heading\n</code></pre>", html, StringComparison.Ordinal);
    }

    [Fact]
    public void Html_in_the_source_is_text_and_a_link_to_a_file_not_served_is_text()
    {
        var html = MarkdownHtml.Render(
            "Hello <script>alert(1)</script> `<b>` [served](alerts.md#x) [not served](../src/X.cs) <https://example.org/a>",
            t => t.StartsWith("alerts.md", StringComparison.Ordinal) || t.StartsWith("https:", StringComparison.Ordinal) ? t : null);
        Assert.DoesNotContain("<script>", html, StringComparison.Ordinal);
        Assert.Contains("&lt;script&gt;", html, StringComparison.Ordinal);
        Assert.Contains("<code>&lt;b&gt;</code>", html, StringComparison.Ordinal);
        Assert.Contains("<a href=\"alerts.md#x\">served</a>", html, StringComparison.Ordinal);
        Assert.Contains(" not served ", html, StringComparison.Ordinal);
        Assert.DoesNotContain("X.cs", html, StringComparison.Ordinal);
        Assert.Contains("<a href=\"https://example.org/a\">https://example.org/a</a>", html, StringComparison.Ordinal);
    }

    [Fact]
    public void Tables_lists_and_code_inside_list_items_render_as_their_elements()
    {
        var markdown = """
            | a | b |
            | --- | --- |
            | `x \| y` | **z** |

            1. first
               ```
               code in the item
               ```
            2. second
               - nested
            """;
        var html = MarkdownHtml.Render(markdown, t => t);
        Assert.Contains("<th>a</th><th>b</th>", html, StringComparison.Ordinal);
        Assert.Contains("<td><code>x | y</code></td><td><strong>z</strong></td>", html, StringComparison.Ordinal);
        Assert.Contains("<ol>\n<li>first\n<pre><code>code in the item\n</code></pre></li>\n<li>second\n<ul>\n<li>nested</li>\n</ul></li>\n</ol>", html, StringComparison.Ordinal);
    }
}

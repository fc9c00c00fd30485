using System.Text.RegularExpressions;
using LogFlushMonitor.Analysis;
using LogFlushMonitor.Commands;

namespace LogFlushMonitor.Tests.Report;

/// <summary>The HTML report opened in headless Chromium, as a person would open it.</summary>
public sealed partial class ReportInBrowserTests : IDisposable
{
    private const string NoChromium = "chromium is not installed (Debian package chromium): the report cannot be rendered.";
    private readonly ReportTestData _data = new();

    public void Dispose() => _data.Dispose();

    private string WriteReport(params string[] inputs)
    {
        var html = _data.PathOf("report.html");
        using var stdout = new StringWriter();
        using var stderr = new StringWriter();
        var code = ReportCommand.Run(new AnalyzeSettings { Inputs = inputs, Progress = ProgressMode.Never }, new FileInfo(html), stdout, stderr, CancellationToken.None);
        Assert.True(code == 0, $"exit {code}: {stderr}");
        return html;
    }

    [SkippableFact]
    public async Task The_report_renders_without_console_messages_and_draws_its_charts()
    {
        Skip.IfNot(Chromium.Available, NoChromium);
        var html = WriteReport(_data.Mixed(), _data.Hostile());
        var url = new Uri(html).AbsoluteUri;

        var (dom, console) = await Chromium.DumpDomAsync(url);

        Assert.Empty(console);
        // Ten databases (nine simulated, Azure's ingest among them, and one hostile), each with its write-size bars and time charts.
        Assert.Equal(10, SectionTag().Count(dom));
        var bars = BarHeight().Matches(dom).Select(m => double.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture)).ToList();
        Assert.True(bars.Count(h => h > 0) >= 9, $"{bars.Count(h => h > 0)} bars with a height");
        var areas = AreaPath().Matches(dom).Select(m => m.Groups[1].Value).ToList();
        Assert.True(areas.Count >= 9 * 2, $"{areas.Count} areas");
        // An area that rises above its baseline: the path visits more than one height.
        Assert.All(areas.Take(9), d => Assert.True(Heights().Matches(d).Select(h => h.Value).Distinct().Count() > 1, d[..Math.Min(200, d.Length)]));

        var png = _data.PathOf("report.png");
        var (code, _, stderr) = await Chromium.ScreenshotAsync(url, png);
        Assert.True(code == 0 && File.Exists(png), stderr);
        var image = Png.Read(png);
        Assert.Equal((1280, 2000), (image.Width, image.Height));
        // Colours only the charts use: solid bars (#2f6fb3), the flush area and the WRITELOG pressure area (35 % over white).
        Assert.True(Count(image, (47, 111, 179)) > 1000, "bar pixels");
        Assert.True(Count(image, (182, 205, 228)) > 5000, "flush-rate area pixels");
        Assert.True(Count(image, (233, 186, 181)) > 5000, "WRITELOG pressure area pixels");
    }

    [SkippableFact]
    public async Task A_database_named_like_markup_is_shown_as_text()
    {
        Skip.IfNot(Chromium.Available, NoChromium);
        var html = WriteReport(_data.Hostile());

        var (dom, console) = await Chromium.DumpDomAsync(new Uri(html).AbsoluteUri);

        Assert.Empty(console); // an injected script would have run (and alert() logs in headless mode)
        Assert.DoesNotContain("<script", dom, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("<b>x</b>", dom, StringComparison.Ordinal);
        Assert.Contains("&lt;script&gt;alert(1)&lt;/script&gt;", dom, StringComparison.Ordinal);
        Assert.Contains("sql-\"q\" &amp; &lt;b&gt;x&lt;/b&gt;", dom, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task Console_messages_are_seen_when_a_page_has_them()
    {
        // The check above is only worth something if it can fail: a page that logs must be caught.
        Skip.IfNot(Chromium.Available, NoChromium);
        var page = _data.PathOf("noisy.html");
        await File.WriteAllTextAsync(page, "<!DOCTYPE html><p>x</p><script>console.error('boom'); missing();</script>");

        var (_, console) = await Chromium.DumpDomAsync(new Uri(page).AbsoluteUri);

        Assert.Contains(console, l => l.Contains("boom", StringComparison.Ordinal));
        Assert.Contains(console, l => l.Contains("missing is not defined", StringComparison.Ordinal));
    }

    [Fact]
    public void The_page_needs_nothing_from_the_network()
    {
        var text = File.ReadAllText(WriteReport(_data.Mixed(), _data.Hostile()));

        Assert.DoesNotContain("<script", text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("<link", text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("<img", text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("url(", text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("@import", text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(" src=", text, StringComparison.OrdinalIgnoreCase);
        Assert.All(Href().Matches(text), m => Assert.StartsWith("#", m.Groups[1].Value, StringComparison.Ordinal));
        // The only absolute URL is the SVG namespace, a name that is never fetched.
        Assert.All(AbsoluteUrl().Matches(text), m => Assert.Equal("http://www.w3.org/2000/svg", m.Value));
    }

    private static int Count(Png image, (int R, int G, int B) colour)
    {
        var n = 0;
        for (var y = 0; y < image.Height; y++)
        {
            for (var x = 0; x < image.Width; x++)
            {
                var (r, g, b) = image[x, y];
                if (Math.Abs(r - colour.R) <= 6 && Math.Abs(g - colour.G) <= 6 && Math.Abs(b - colour.B) <= 6)
                {
                    n++;
                }
            }
        }

        return n;
    }

    [GeneratedRegex("<section class=\"db\"")]
    private static partial Regex SectionTag();

    [GeneratedRegex("<rect class=\"bar s1\"[^>]* height=\"([0-9.]+)\"")]
    private static partial Regex BarHeight();

    [GeneratedRegex("<path class=\"area [^\"]*\" d=\"([^\"]+)\"")]
    private static partial Regex AreaPath();

    [GeneratedRegex(@"V[0-9.]+")]
    private static partial Regex Heights();

    [GeneratedRegex("href=\"([^\"]*)\"")]
    private static partial Regex Href();

    [GeneratedRegex(@"https?://[^\s""'<>)]+")]
    private static partial Regex AbsoluteUrl();
}

using System.Collections.Frozen;
using System.Net;
using System.Reflection;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// The documentation this build was made with, served by the monitor itself: README.md, LICENSE, CONTRIBUTING.md,
/// SECURITY.md and docs/ (embedded in the executable, so every install has them: archive, image, Helm, .NET tool). Each
/// page is at its path in the repository (<c>/docs/alerts.md</c>, <c>/README.md</c>), Markdown shown as HTML with
/// GitHub's heading anchors, so an alert's runbook link <c>…/docs/alerts.md#sqlserverwritelogspike</c> works against the
/// monitor (docs/alerts.md, "Runbook links") and the relative links between pages work as they do in the repository.
/// A link to a file the monitor does not serve (deploy/, the sources) is shown as text. <c>/docs/</c> lists the pages.
/// </summary>
internal static class DocsEndpoints
{
    /// <summary>Where the pages are: <c>/docs/</c> (the index), <c>/docs/&lt;page&gt;.md</c>, <c>/README.md</c>.</summary>
    public const string Index = "/docs/";

    private const string ResourcePrefix = "site/";

    private static readonly Lazy<FrozenDictionary<string, Page>> Pages = new(Load);

    /// <summary>The served paths (without the leading '/'), as in the repository: README.md, docs/alerts.md, docs/images/report.png, ...</summary>
    public static IReadOnlyCollection<string> Paths => Pages.Value.Keys;

    /// <summary>Maps GET and HEAD of every page, and of the index at <c>/docs/</c> (or <c>/docs</c>: routing ignores the slash).</summary>
    public static void Map(WebApplication app, HttpMethodMetadata getAndHead)
    {
        var index = new Lazy<byte[]>(IndexPage);
        app.MapGet(Index, context => Write(context, index.Value, "text/html; charset=utf-8")).WithMetadata(getAndHead);
        foreach (var (path, page) in Pages.Value)
        {
            app.MapGet("/" + path, context => Write(context, page.Body.Value, page.ContentType)).WithMetadata(getAndHead);
        }
    }

    /// <summary>The page at <paramref name="path"/> as served (README.md, docs/alerts.md), or null.</summary>
    public static string? Html(string path) =>
        Pages.Value.TryGetValue(path, out var page) && page.ContentType.StartsWith("text/html", StringComparison.Ordinal)
            ? Encoding.UTF8.GetString(page.Body.Value)
            : null;

    private static Task Write(HttpContext context, byte[] body, string contentType)
    {
        context.Response.ContentType = contentType;
        context.Response.ContentLength = body.Length;
        return HttpMethods.IsHead(context.Request.Method)
            ? Task.CompletedTask
            : context.Response.Body.WriteAsync(body, context.RequestAborted).AsTask();
    }

    private static FrozenDictionary<string, Page> Load()
    {
        var assembly = typeof(DocsEndpoints).Assembly;
        var sources = assembly.GetManifestResourceNames()
            .Where(n => n.StartsWith(ResourcePrefix, StringComparison.Ordinal))
            .ToDictionary(n => n[ResourcePrefix.Length..].Replace('\\', '/'), n => n, StringComparer.Ordinal);
        var pages = new Dictionary<string, Page>(StringComparer.Ordinal);
        foreach (var (path, resource) in sources)
        {
            if (path.EndsWith(".md", StringComparison.OrdinalIgnoreCase))
            {
                pages[path] = new Page("text/html; charset=utf-8", new(() => Encoding.UTF8.GetBytes(RenderPage(path, ReadText(assembly, resource), sources.Keys))));
            }
            else if (path.EndsWith(".png", StringComparison.OrdinalIgnoreCase))
            {
                pages[path] = new Page("image/png", new(() => ReadBytes(assembly, resource)));
            }
            else
            {
                pages[path] = new Page("text/plain; charset=utf-8", new(() => ReadBytes(assembly, resource)));
            }
        }

        return pages.ToFrozenDictionary(StringComparer.Ordinal);
    }

    private static string ReadText(Assembly assembly, string resource) => Encoding.UTF8.GetString(ReadBytes(assembly, resource));

    private static byte[] ReadBytes(Assembly assembly, string resource)
    {
        using var stream = assembly.GetManifestResourceStream(resource)!;
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }

    /// <summary>
    /// One page: its Markdown as HTML, links resolved against the page's own path. A relative link to a served file
    /// stays as written; one to a file not served becomes text; http(s) and mailto links stay.
    /// </summary>
    private static string RenderPage(string path, string markdown, IReadOnlyCollection<string> served)
    {
        var here = new Uri(new Uri("http://docs.invalid/"), path);
        string? Link(string target)
        {
            if (target.StartsWith('#'))
            {
                return target;
            }

            if (Uri.TryCreate(target, UriKind.Absolute, out var absolute) && absolute.Scheme is "http" or "https" or "mailto")
            {
                return target;
            }

            var resolved = new Uri(here, target);
            var file = Uri.UnescapeDataString(resolved.AbsolutePath.TrimStart('/'));
            return resolved.Host == here.Host && served.Contains(file) ? target : null;
        }

        var title = MarkdownHtml.Title(markdown) ?? path;
        return Frame(title == "LogFlushMonitor" ? path : title, MarkdownHtml.Render(markdown, Link), path);
    }

    private static byte[] IndexPage()
    {
        var list = new StringBuilder("<h1>LogFlushMonitor documentation</h1>\n<ul>\n");
        var assembly = typeof(DocsEndpoints).Assembly;
        var names = assembly.GetManifestResourceNames().Where(n => n.StartsWith(ResourcePrefix, StringComparison.Ordinal)).ToDictionary(n => n[ResourcePrefix.Length..].Replace('\\', '/'), StringComparer.Ordinal);
        foreach (var path in Pages.Value.Keys.Where(p => p.EndsWith(".md", StringComparison.Ordinal)).OrderBy(p => p.Contains('/', StringComparison.Ordinal)).ThenBy(p => p, StringComparer.Ordinal))
        {
            var title = MarkdownHtml.Title(ReadText(assembly, names[path])) ?? path;
            list.Append("<li><a href=\"/").Append(WebUtility.HtmlEncode(path)).Append("\">").Append(WebUtility.HtmlEncode(path)).Append("</a>: ")
                .Append(WebUtility.HtmlEncode(title)).Append("</li>\n");
        }

        list.Append("</ul>\n<p>The alerts' runbooks: <a href=\"/docs/alerts.md#the-alerts\">docs/alerts.md</a>. Licence: <a href=\"/LICENSE\">LICENSE</a> (MIT).</p>\n");
        return Encoding.UTF8.GetBytes(Frame("LogFlushMonitor documentation", list.ToString(), null));
    }

    private static string Frame(string title, string body, string? path)
    {
        var version = typeof(DocsEndpoints).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "";
        var plus = version.IndexOf('+', StringComparison.Ordinal);
        return new StringBuilder()
            .Append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
            .Append("<title>").Append(WebUtility.HtmlEncode(title)).Append(" - LogFlushMonitor</title>\n<style>")
            .Append("body{font-family:system-ui,sans-serif;line-height:1.5;max-width:60rem;margin:0 auto;padding:0 1rem 3rem;color:#1f2328}")
            .Append("nav{padding:.6rem 0;border-bottom:1px solid #d0d7de;margin-bottom:1rem;font-size:.9rem}")
            .Append("code{background:#f3f4f6;padding:.1em .3em;border-radius:4px;font-size:.9em}pre{background:#f6f8fa;padding:.8rem;overflow:auto}pre code{background:none;padding:0}")
            .Append("table{border-collapse:collapse;margin:1rem 0;display:block;overflow:auto}th,td{border:1px solid #d0d7de;padding:.3rem .6rem;vertical-align:top}")
            .Append("a.anchor{visibility:hidden;text-decoration:none;margin-left:.3rem}h1:hover a.anchor,h2:hover a.anchor,h3:hover a.anchor,h4:hover a.anchor{visibility:visible}")
            .Append(":target{background:#fff8c5}img{max-width:100%}</style>\n</head>\n<body>\n<nav><a href=\"/docs/\">LogFlushMonitor ")
            .Append(WebUtility.HtmlEncode(plus < 0 ? version : version[..plus])).Append(" documentation</a> &middot; <a href=\"/README.md\">README</a>")
            .Append(path is null ? "" : " &middot; " + WebUtility.HtmlEncode(path)).Append("</nav>\n<main>\n")
            .Append(body).Append("</main>\n</body>\n</html>\n").ToString();
    }

    private sealed record Page(string ContentType, Lazy<byte[]> Body);
}

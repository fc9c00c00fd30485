using System.Text.RegularExpressions;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// The links of Markdown files in a folder (a release archive's, the repository's): every relative link and image
/// names a file inside the folder, and every '#anchor' is a heading of the page it points to (GitHub's anchors, as
/// <see cref="MarkdownHtml.Anchors"/> computes them and the monitor's /docs/ pages carry them).
/// </summary>
internal static partial class MarkdownLinks
{
    /// <summary>Each link of <paramref name="markdownFile"/> as written (code blocks and code spans left out).</summary>
    public static IReadOnlyList<string> Of(string markdownFile)
    {
        var text = FenceRegex().Replace(File.ReadAllText(markdownFile), "");
        text = CodeSpanRegex().Replace(text, "");
        return [.. LinkRegex().Matches(text).Select(m => m.Groups["target"].Value)];
    }

    /// <summary>
    /// The broken links of every .md file under <paramref name="root"/> that <paramref name="include"/> accepts (its
    /// path relative to the root, '/'-separated), as "file: link (why)"; external http(s) and mailto links are not
    /// followed.
    /// </summary>
    public static List<string> Broken(string root, Func<string, bool> include)
    {
        var broken = new List<string>();
        var anchors = new Dictionary<string, IReadOnlyList<string>>(StringComparer.Ordinal);
        IReadOnlyList<string> AnchorsOf(string file)
        {
            if (!anchors.TryGetValue(file, out var a))
            {
                anchors[file] = a = MarkdownHtml.Anchors(File.ReadAllText(file));
            }

            return a;
        }

        foreach (var file in Directory.EnumerateFiles(root, "*.md", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
        {
            var relative = Path.GetRelativePath(root, file).Replace('\\', '/');
            if (!include(relative))
            {
                continue;
            }

            foreach (var link in Of(file))
            {
                if (link.StartsWith("http://", StringComparison.Ordinal) || link.StartsWith("https://", StringComparison.Ordinal) || link.StartsWith("mailto:", StringComparison.Ordinal))
                {
                    continue;
                }

                var hash = link.IndexOf('#', StringComparison.Ordinal);
                var path = hash < 0 ? link : link[..hash];
                var anchor = hash < 0 ? null : link[(hash + 1)..];
                var target = path.Length == 0 ? file : Path.GetFullPath(Path.Combine(Path.GetDirectoryName(file)!, Uri.UnescapeDataString(path)));
                if (!target.StartsWith(Path.GetFullPath(root) + Path.DirectorySeparatorChar, StringComparison.Ordinal))
                {
                    broken.Add($"{relative}: {link} (outside {root})");
                }
                else if (!File.Exists(target) && !Directory.Exists(target))
                {
                    broken.Add($"{relative}: {link} (no such file)");
                }
                else if (anchor is not null && (!target.EndsWith(".md", StringComparison.Ordinal) || !AnchorsOf(target).Contains(anchor)))
                {
                    broken.Add($"{relative}: {link} (no heading with the anchor '{anchor}' in {Path.GetRelativePath(root, target)})");
                }
            }
        }

        return broken;
    }

    [GeneratedRegex(@"^ *```.*?^ *```[ \t]*$", RegexOptions.Singleline | RegexOptions.Multiline)]
    private static partial Regex FenceRegex();

    [GeneratedRegex(@"`[^`\n]+`")]
    private static partial Regex CodeSpanRegex();

    [GeneratedRegex(@"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\((?<target>[^()\s]+)\)")]
    private static partial Regex LinkRegex();
}

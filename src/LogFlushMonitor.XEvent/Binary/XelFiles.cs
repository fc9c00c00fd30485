using System.Globalization;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.XEvent;

/// <summary>Finds the .xel files of a path, glob or folder, in rollover order.</summary>
public static partial class XelFiles
{
    /// <summary>
    /// Expands a file path, a folder (its *.xel files) or a glob in the file-name part
    /// (<c>/dir/name*.xel</c>) and orders the result: rollover sets <c>name_0_&lt;ticks&gt;.xel</c> by ticks.
    /// </summary>
    public static IReadOnlyList<string> Expand(string pathOrPattern)
    {
        ArgumentException.ThrowIfNullOrEmpty(pathOrPattern);
        if (Directory.Exists(pathOrPattern))
        {
            return Order(Directory.EnumerateFiles(pathOrPattern, "*.xel"));
        }

        if (File.Exists(pathOrPattern))
        {
            return [pathOrPattern];
        }

        var fileName = Path.GetFileName(pathOrPattern);
        if (fileName.AsSpan().IndexOfAny('*', '?') >= 0)
        {
            var dir = Path.GetDirectoryName(pathOrPattern);
            dir = string.IsNullOrEmpty(dir) ? "." : dir;
            return Directory.Exists(dir) ? Order(Directory.EnumerateFiles(dir, fileName)) : [];
        }

        throw new FileNotFoundException($"No .xel file, folder or pattern matches '{pathOrPattern}'", pathOrPattern);
    }

    /// <summary>Orders files: by rollover prefix, then the ticks part numerically, then by name.</summary>
    public static IReadOnlyList<string> Order(IEnumerable<string> paths) =>
        [.. paths.Select(p => (Path: p, Key: KeyOf(p)))
            .OrderBy(x => x.Key.Prefix, StringComparer.Ordinal)
            .ThenBy(x => x.Key.Ticks)
            .ThenBy(x => x.Path, StringComparer.Ordinal)
            .Select(x => x.Path)];

    private static (string Prefix, decimal Ticks) KeyOf(string path)
    {
        var m = RolloverName().Match(Path.GetFileName(path));
        if (m.Success && decimal.TryParse(m.Groups["ticks"].ValueSpan, NumberStyles.None, CultureInfo.InvariantCulture, out var ticks))
        {
            return (Path.Combine(Path.GetDirectoryName(path) ?? string.Empty, m.Groups["prefix"].Value), ticks);
        }

        return (Path.Combine(Path.GetDirectoryName(path) ?? string.Empty, Path.GetFileNameWithoutExtension(path)), 0);
    }

    [GeneratedRegex(@"^(?<prefix>.*)_\d+_(?<ticks>\d{1,28})\.xel$", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex RolloverName();
}

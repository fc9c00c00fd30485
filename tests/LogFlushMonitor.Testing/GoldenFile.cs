using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Testing;

/// <summary>
/// Outputs recorded from fixed inputs (tests/testdata/golden) that a change must leave byte for byte the same, once what
/// varies from run to run (timestamps, durations, the machine) is masked: the proof that a refactor is one. Set
/// <c>LFM_UPDATE_GOLDEN=1</c> to write the files anew after a change that is meant to alter an output, and say in the
/// commit which output changed and why.
/// </summary>
public static partial class GoldenFile
{
    /// <summary>Fails when <paramref name="actual"/> differs from the golden file <paramref name="name"/>; names the first differing line.</summary>
    public static void AssertSame(string name, string actual)
    {
        ArgumentNullException.ThrowIfNull(actual);
        var path = Path.Combine(Directory(), name);
        actual = actual.Replace("\r\n", "\n", StringComparison.Ordinal);
        if (Environment.GetEnvironmentVariable("LFM_UPDATE_GOLDEN") == "1")
        {
            File.WriteAllText(path, actual, new UTF8Encoding(false));
            return;
        }

        if (!File.Exists(path))
        {
            throw new GoldenMismatchException($"No golden file {path}: run the test once with LFM_UPDATE_GOLDEN=1 to record it.");
        }

        var expected = File.ReadAllText(path).Replace("\r\n", "\n", StringComparison.Ordinal);
        if (expected == actual)
        {
            return;
        }

        var e = expected.Split('\n');
        var a = actual.Split('\n');
        var line = 0;
        while (line < e.Length && line < a.Length && e[line] == a[line])
        {
            line++;
        }

        throw new GoldenMismatchException(
            $"{name} differs from its golden file at line {line + 1} ({e.Length} lines expected, {a.Length} produced):\n"
            + $"  golden:   {(line < e.Length ? e[line] : "(end)")}\n  produced: {(line < a.Length ? a[line] : "(end)")}\n"
            + "If the change is meant to alter this output, record it anew with LFM_UPDATE_GOLDEN=1 and say why in the commit.");
    }

    /// <summary>
    /// The <c>sqlserver_</c> families of a Prometheus text exposition (the process and runtime families vary by machine),
    /// each family's block (HELP, TYPE, samples) as written, the blocks in the order of their names (the order of families
    /// in an exposition means nothing to a scraper, and a registry of signals may declare them in another order), with the
    /// values of <paramref name="masked"/> families (timestamps, wall-clock durations) replaced by <c>MASKED</c> and the
    /// series of <paramref name="unordered"/> families sorted (a registry whose order is not fixed).
    /// </summary>
    public static string Exposition(string text, string[] masked, string[]? unordered = null)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(masked);
        static bool Of(string name, string[] families) => families.Any(m => name == m || name.StartsWith(m + "_", StringComparison.Ordinal));
        var blocks = new SortedDictionary<string, List<string>>(StringComparer.Ordinal);
        List<string>? block = null;
        foreach (var raw in text.Split('\n'))
        {
            var line = raw.TrimEnd('\r');
            var comment = line.StartsWith('#');
            var name = comment ? line.Split(' ').ElementAtOrDefault(2) ?? "" : SampleName().Match(line).Value;
            if (!name.StartsWith("sqlserver_", StringComparison.Ordinal))
            {
                continue;
            }

            if (line.StartsWith("# HELP ", StringComparison.Ordinal) || block is null)
            {
                blocks[name] = block = [];
            }

            if (!comment && Of(name, masked))
            {
                line = line[..(line.LastIndexOf(' ') + 1)] + "MASKED";
            }

            block.Add(line);
        }

        var sb = new StringBuilder();
        foreach (var (name, lines) in blocks)
        {
            var samples = lines.Where(l => !l.StartsWith('#')).ToList();
            if (unordered is not null && Of(name, unordered))
            {
                samples.Sort(StringComparer.Ordinal);
            }

            foreach (var l in lines.Where(l => l.StartsWith('#')).Concat(samples))
            {
                sb.Append(l).Append('\n');
            }
        }

        return sb.ToString();
    }

    /// <summary>Replaces the value of each JSON property named in <paramref name="properties"/> (numbers or strings) by "MASKED".</summary>
    public static string MaskJson(string json, params string[] properties)
    {
        ArgumentNullException.ThrowIfNull(json);
        foreach (var p in properties)
        {
            json = Regex.Replace(json, "(\"" + Regex.Escape(p) + "\"\\s*:\\s*)(\"[^\"]*\"|-?[0-9][0-9.eE+-]*)", "$1\"MASKED\"");
        }

        return json;
    }

    /// <summary>Replaces every occurrence of <paramref name="text"/> (a temporary path) by <paramref name="by"/>.</summary>
    public static string Mask(string output, string text, string by) =>
        string.IsNullOrEmpty(text) ? output : output.Replace(text, by, StringComparison.Ordinal);

    /// <summary>A number printed in the invariant culture (for golden names and keys).</summary>
    public static string Invariant(double value) => value.ToString("R", CultureInfo.InvariantCulture);

    /// <summary>tests/testdata/golden of this repository.</summary>
    public static string Directory()
    {
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (dir is not null && !File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
        {
            dir = dir.Parent;
        }

        var golden = Path.Combine(dir?.FullName ?? throw new InvalidOperationException("LogFlushMonitor.sln not found above " + AppContext.BaseDirectory), "tests", "testdata", "golden");
        System.IO.Directory.CreateDirectory(golden);
        return golden;
    }

    [GeneratedRegex(@"^[A-Za-z_:][A-Za-z0-9_:]*")]
    private static partial Regex SampleName();
}

/// <summary>An output that is not its golden file's (fails the test that asked).</summary>
public sealed class GoldenMismatchException(string message) : Exception(message);

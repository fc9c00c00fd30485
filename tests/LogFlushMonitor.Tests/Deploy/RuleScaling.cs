using System.Globalization;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// Shortens every duration of a Prometheus rule file by one factor, mechanically: range selectors and subqueries
/// (<c>[1m]</c>, <c>[1d:5m]</c>), <c>offset</c>, and the <c>for:</c> and <c>interval:</c> fields. Thresholds,
/// names and logic stay as shipped. docs/alerts.md ("Shortening the rules for a test") describes it; a test stack
/// that compresses a scenario in time uses it to keep deploy/prometheus/alerts.yml's rules as they are.
/// </summary>
internal static partial class RuleScaling
{
    private const string Duration = @"(?:\d+(?:ms|[smhdwy]))+";

    /// <summary>Returns <paramref name="rules"/> with every duration divided by <paramref name="factor"/> (at least 1 ms each).</summary>
    public static string Shorten(string rules, double factor)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(factor, 1.0);
        string Scale(string d) => Format(Math.Max(1, (long)Math.Round(Milliseconds(d) / factor)));
        rules = RangeRegex().Replace(rules, m =>
            "[" + Scale(m.Groups["range"].Value)
            + (m.Groups["colon"].Success ? ":" + (m.Groups["step"].Success ? Scale(m.Groups["step"].Value) : "") : "")
            + "]");
        rules = OffsetRegex().Replace(rules, m => "offset " + Scale(m.Groups["d"].Value));
        return FieldRegex().Replace(rules, m => m.Groups["key"].Value + Scale(m.Groups["d"].Value));
    }

    /// <summary>Every duration <see cref="Shorten"/> would change, in order of appearance, in milliseconds.</summary>
    public static IReadOnlyList<long> Durations(string rules) =>
        [
            .. RangeRegex().Matches(rules).SelectMany(m => m.Groups["step"].Success ? new[] { m.Groups["range"], m.Groups["step"] } : [m.Groups["range"]])
                .Concat(OffsetRegex().Matches(rules).Select(m => m.Groups["d"]))
                .Concat(FieldRegex().Matches(rules).Select(m => m.Groups["d"]))
                .OrderBy(g => g.Index)
                .Select(g => Milliseconds(g.Value)),
        ];

    public static long Milliseconds(string duration)
    {
        long total = 0;
        foreach (Match part in PartRegex().Matches(duration))
        {
            var n = long.Parse(part.Groups[1].Value, CultureInfo.InvariantCulture);
            total += part.Groups[2].Value switch
            {
                "ms" => n,
                "s" => n * 1000,
                "m" => n * 60_000,
                "h" => n * 3_600_000,
                "d" => n * 86_400_000,
                "w" => n * 604_800_000,
                _ => n * 31_536_000_000,
            };
        }

        return total;
    }

    /// <summary>A duration in milliseconds as Prometheus and Alertmanager write it (whole seconds as "s", else "ms").</summary>
    public static string Format(long ms) => ms % 1000 == 0
        ? (ms / 1000).ToString(CultureInfo.InvariantCulture) + "s"
        : ms.ToString(CultureInfo.InvariantCulture) + "ms";

    [GeneratedRegex(@"\[(?<range>" + Duration + @")(?:(?<colon>:)(?<step>" + Duration + @")?)?\]")]
    private static partial Regex RangeRegex();

    [GeneratedRegex(@"\boffset\s+(?<d>" + Duration + @")\b")]
    private static partial Regex OffsetRegex();

    [GeneratedRegex(@"^(?<key>[ \t]*(?:for|interval):[ \t]*)(?<d>" + Duration + @")[ \t]*$", RegexOptions.Multiline)]
    private static partial Regex FieldRegex();

    [GeneratedRegex(@"(\d+)(ms|[smhdwy])")]
    private static partial Regex PartRegex();
}

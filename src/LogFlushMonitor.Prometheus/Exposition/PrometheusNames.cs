using System.Text;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>
/// Name and unit translation from OpenTelemetry to Prometheus, per the OpenTelemetry specification's
/// "Prometheus and OpenMetrics Compatibility" section. Runs once per metric stream, never per scrape.
/// </summary>
internal static class PrometheusNames
{
    // UCUM abbreviations the specification asks to spell out; anything else is kept (sanitised).
    private static readonly Dictionary<string, string> UnitWords = new(StringComparer.Ordinal)
    {
        ["d"] = "days", ["h"] = "hours", ["min"] = "minutes", ["s"] = "seconds",
        ["ms"] = "milliseconds", ["us"] = "microseconds", ["ns"] = "nanoseconds",
        ["By"] = "bytes", ["KiBy"] = "kibibytes", ["MiBy"] = "mebibytes", ["GiBy"] = "gibibytes",
        ["TiBy"] = "tibibytes", ["KBy"] = "kilobytes", ["MBy"] = "megabytes", ["GBy"] = "gigabytes",
        ["TBy"] = "terabytes", ["bit"] = "bits",
        ["m"] = "meters", ["V"] = "volts", ["A"] = "amperes", ["J"] = "joules", ["W"] = "watts",
        ["g"] = "grams", ["Cel"] = "celsius", ["Hz"] = "hertz", ["%"] = "percent",
    };

    // The denominator of "x/y" reads in the singular: bytes_per_second.
    private static readonly Dictionary<string, string> PerUnitWords = new(StringComparer.Ordinal)
    {
        ["s"] = "second", ["m"] = "minute", ["h"] = "hour", ["d"] = "day",
        ["w"] = "week", ["mo"] = "month", ["y"] = "year",
    };

    /// <summary>Replaces characters outside <c>[a-zA-Z0-9_:]</c> with <c>_</c>, collapses runs of <c>_</c>.</summary>
    public static string SanitizeMetricName(string name) => Sanitize(name, allowColon: true);

    /// <summary>Replaces characters outside <c>[a-zA-Z0-9_]</c> with <c>_</c>, collapses runs of <c>_</c>.</summary>
    public static string SanitizeLabelName(string name) => Sanitize(name, allowColon: false);

    /// <summary>
    /// The unit suffix for a UCUM unit: annotations in braces dropped, abbreviations spelled out,
    /// <c>a/b</c> as <c>a_per_b</c>, and <c>1</c> as <c>ratio</c> for gauges only. Empty when unitless.
    /// </summary>
    public static string UnitSuffix(string? unit, bool isGauge)
    {
        if (string.IsNullOrWhiteSpace(unit))
        {
            return string.Empty;
        }

        var stripped = StripAnnotations(unit).Trim();
        if (stripped == "1")
        {
            return isGauge ? "ratio" : string.Empty;
        }

        var slash = stripped.IndexOf('/', StringComparison.Ordinal);
        var main = slash < 0 ? stripped : stripped[..slash].Trim();
        var per = slash < 0 ? string.Empty : stripped[(slash + 1)..].Trim();
        main = main == "1" ? string.Empty : UnitWords.GetValueOrDefault(main, main);
        per = PerUnitWords.GetValueOrDefault(per, UnitWords.GetValueOrDefault(per, per));

        var suffix = per.Length == 0 ? main : main.Length == 0 ? "per_" + per : main + "_per_" + per;
        return Sanitize(suffix, allowColon: false).Trim('_');
    }

    /// <summary>The metric family name: sanitised name, unit suffix unless present, then <c>_total</c> for counters.</summary>
    public static string FamilyName(string name, string? unit, bool isCounter, bool isGauge, bool addTotalSuffix)
    {
        var baseName = SanitizeMetricName(name);
        if (isCounter && baseName.EndsWith("_total", StringComparison.Ordinal) && baseName.Length > "_total".Length)
        {
            baseName = baseName[..^"_total".Length];
        }

        var suffix = UnitSuffix(unit, isGauge);
        if (suffix.Length > 0 && !("_" + baseName + "_").Contains("_" + suffix + "_", StringComparison.Ordinal))
        {
            baseName = baseName + "_" + suffix;
        }

        return isCounter && addTotalSuffix ? baseName + "_total" : baseName;
    }

    private static string StripAnnotations(string unit)
    {
        if (!unit.Contains('{', StringComparison.Ordinal))
        {
            return unit;
        }

        var sb = new StringBuilder(unit.Length);
        var depth = 0;
        foreach (var c in unit)
        {
            if (c == '{')
            {
                depth++;
            }
            else if (c == '}' && depth > 0)
            {
                depth--;
            }
            else if (depth == 0)
            {
                sb.Append(c);
            }
        }

        return sb.ToString();
    }

    private static string Sanitize(string name, bool allowColon)
    {
        var sb = new StringBuilder(name.Length + 1);
        foreach (var c in name)
        {
            var valid = c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '_' || (allowColon && c == ':');
            var mapped = valid ? c : '_';
            if (mapped == '_' && sb.Length > 0 && sb[^1] == '_')
            {
                continue;
            }

            sb.Append(mapped);
        }

        if (sb.Length == 0 || char.IsAsciiDigit(sb[0]))
        {
            sb.Insert(0, '_');
        }

        return sb.ToString();
    }
}

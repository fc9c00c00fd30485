using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Deploy;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// Prometheus's own rule evaluation in virtual time: <c>promtool test rules</c> over the scrapes of a
/// <see cref="VirtualTimeScrapes"/> run (one input sample per scrape, evaluated every scrape interval or at the interval
/// given) with the shipped deploy/prometheus/alerts.yml, as shipped or shortened by a factor (<see cref="RuleScaling.Shorten"/>).
/// </summary>
/// <remarks>
/// Two kinds of check. An <see cref="ExpectNone"/> is promtool's own assertion (an empty result at that time). A probe
/// (<see cref="Probe"/>, <see cref="ProbeAlerts"/>) asks for an empty result too, and what promtool reports it got
/// instead is parsed back as the answer: promtool prints the series of a failed expression test and the labels and
/// annotations of a failed alert test, so the test can assert on values only the evaluation knows (when an alert fired,
/// what its annotations say). The run succeeds only when every failure promtool reports is a probe's.
/// </remarks>
internal sealed partial class PromtoolRuleEvaluation
{
    private readonly List<string> _exprTests = [];
    private readonly List<string> _alertTests = [];
    private readonly HashSet<(string Expr, int Seconds)> _probes = [];
    private readonly HashSet<(string Alert, int Seconds)> _alertProbes = [];
    private string _output = "";

    /// <summary>The promtool binary: $PROMTOOL, else Debian's /usr/bin/promtool.</summary>
    public static string BinaryPath => Environment.GetEnvironmentVariable("PROMTOOL") ?? "/usr/bin/promtool";

    public static bool IsInstalled => File.Exists(BinaryPath);

    /// <summary>The shipped Prometheus configuration (deploy/prometheus/prometheus.yml): scrape and evaluation intervals, external labels.</summary>
    public static (TimeSpan Scrape, TimeSpan Evaluation, Dictionary<string, string> ExternalLabels) ShippedPrometheus()
    {
        var config = DeployFiles.ReadYaml(File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "prometheus.yml")));
        var labels = DeployFiles.Map(DeployFiles.At(config, "global", "external_labels") ?? new Dictionary<string, object?>(), "external_labels")
            .ToDictionary(l => l.Key, l => (string)l.Value!, StringComparer.Ordinal);
        return (
            TimeSpan.FromMilliseconds(RuleScaling.Milliseconds(DeployFiles.Text(config, "global", "scrape_interval")!)),
            TimeSpan.FromMilliseconds(RuleScaling.Milliseconds(DeployFiles.Text(config, "global", "evaluation_interval")!)),
            labels);
    }

    public static string NotInstalledReason => $"promtool not found at {BinaryPath} (Debian package 'prometheus'; .ci/run installs it)";

    /// <summary>Series of each probe that returned some: (expression, seconds) → (labels, value) per series.</summary>
    public Dictionary<(string Expr, int Seconds), List<(Dictionary<string, string> Labels, string Value)>> ProbeResults { get; } = [];

    /// <summary>Firing alerts of each alert probe that had some: (alert name, seconds) → (labels, annotations) per alert.</summary>
    public Dictionary<(string Alert, int Seconds), List<(Dictionary<string, string> Labels, Dictionary<string, string> Annotations)>> AlertProbeResults { get; } = [];

    /// <summary>promtool's whole output (for failure messages).</summary>
    public string Output => _output;

    /// <summary>promtool asserts <paramref name="expr"/> has no result at <paramref name="seconds"/>.</summary>
    public void ExpectNone(string expr, int seconds) => _exprTests.Add(ExprTest(expr, seconds));

    /// <summary>What <paramref name="expr"/> returns at <paramref name="seconds"/> (after <see cref="RunAsync"/>: <see cref="Results"/>).</summary>
    public void Probe(string expr, int seconds)
    {
        _probes.Add((expr, seconds));
        _exprTests.Add(ExprTest(expr, seconds));
    }

    /// <summary>Which alerts named <paramref name="alert"/> fire at <paramref name="seconds"/>, with their annotations.</summary>
    public void ProbeAlerts(string alert, int seconds)
    {
        _alertProbes.Add((alert, seconds));
        _alertTests.Add($"    - eval_time: {seconds}s\n      alertname: {alert}\n      exp_alerts: []\n");
    }

    /// <summary>The series <paramref name="expr"/> returned at <paramref name="seconds"/> (empty when none).</summary>
    public IReadOnlyList<(Dictionary<string, string> Labels, string Value)> Results(string expr, int seconds) =>
        ProbeResults.GetValueOrDefault((expr, seconds)) ?? [];

    /// <summary>
    /// Runs promtool over <paramref name="scrapes"/> and the shipped rules divided by <paramref name="factor"/> (1: the
    /// file as shipped, unchanged), evaluated every <paramref name="evaluationInterval"/> (default: every scrape), with
    /// <paramref name="externalLabels"/> as Prometheus's global external labels.
    /// </summary>
    public async Task RunAsync(VirtualTimeScrapes scrapes, double factor, TimeSpan? evaluationInterval = null, IReadOnlyDictionary<string, string>? externalLabels = null)
    {
        var work = Directory.CreateTempSubdirectory("lfm-vtime-");
        try
        {
            var shipped = await File.ReadAllTextAsync(DeployFiles.Path("deploy", "prometheus", "alerts.yml"));
            var rules = factor == 1 ? shipped : RuleScaling.Shorten(shipped, factor);
            await File.WriteAllTextAsync(Path.Combine(work.FullName, "alerts.yml"), rules);
            var interval = $"{(long)scrapes.Step.TotalMilliseconds}ms";
            var test = new StringBuilder()
                .Append("rule_files: [alerts.yml]\n")
                .Append("evaluation_interval: ").Append((long)(evaluationInterval ?? scrapes.Step).TotalMilliseconds).Append("ms\n")
                .Append("tests:\n")
                .Append("  - interval: ").Append(interval).Append('\n');
            if (externalLabels is { Count: > 0 })
            {
                test.Append("    external_labels:\n");
                foreach (var (name, value) in externalLabels)
                {
                    test.Append("      ").Append(name).Append(": ").Append(System.Text.Json.JsonSerializer.Serialize(value)).Append('\n');
                }
            }

            test.Append("    input_series:\n").Append(scrapes.InputSeriesYaml())
                .Append("    promql_expr_test:\n").Append(_exprTests.Count == 0 ? "      []\n" : string.Concat(_exprTests))
                .Append("    alert_rule_test:\n").Append(_alertTests.Count == 0 ? "      []\n" : string.Concat(_alertTests));
            await File.WriteAllTextAsync(Path.Combine(work.FullName, "test.yml"), test.ToString());
            var (code, stdout, stderr) = await Tool.RunAsync(BinaryPath, ["test", "rules", "test.yml"], work.FullName, timeout: TimeSpan.FromMinutes(3));
            _output = stdout + stderr;
            var unexpected = Parse(_output);
            Assert.True(unexpected.Count == 0, $"promtool test rules failed on more than the probes: {string.Join("\n", unexpected)}\n{Tail(_output)}");
            Assert.True(code == 0 || ProbeResults.Count + AlertProbeResults.Count > 0, $"promtool exited with {code}: {Tail(_output)}");
        }
        finally
        {
            work.Delete(recursive: true);
        }
    }

    private static string ExprTest(string expr, int seconds) =>
        // A JSON string is a YAML double-quoted scalar: the expression reaches promtool as written, newlines included.
        $"    - expr: {System.Text.Json.JsonSerializer.Serialize(expr)}\n      eval_time: {seconds}s\n      exp_samples: []\n";

    /// <summary>Fills the probe results from promtool's failure report; returns the failures no probe asked for.</summary>
    private List<string> Parse(string output)
    {
        var unexpected = new List<string>();
        var lines = output.Split('\n');
        for (var i = 0; i < lines.Length; i++)
        {
            if (ExprFailureRegex().Match(lines[i]) is { Success: true } e)
            {
                var expr = Regex.Unescape(e.Groups["expr"].Value);
                var seconds = Seconds(e.Groups["time"].Value);
                var got = i + 2 < lines.Length ? lines[i + 2].Trim() : "";
                if (!_probes.Contains((expr, seconds)) || !got.StartsWith("got: ", StringComparison.Ordinal))
                {
                    unexpected.Add(lines[i].Trim() + " " + (i + 2 < lines.Length ? lines[i + 2].Trim() : ""));
                    continue;
                }

                ProbeResults[(expr, seconds)] = [.. SeriesList(got["got: ".Length..])];
            }
            else if (AlertFailureRegex().Match(lines[i]) is { Success: true } a)
            {
                var alert = a.Groups["alert"].Value;
                var seconds = Seconds(a.Groups["time"].Value);
                if (!_alertProbes.Contains((alert, seconds)))
                {
                    unexpected.Add(lines[i].Trim());
                    continue;
                }

                var alerts = new List<(Dictionary<string, string>, Dictionary<string, string>)>();
                for (var j = i + 1; j < lines.Length && !ExprFailureRegex().IsMatch(lines[j]) && !AlertFailureRegex().IsMatch(lines[j]); j++)
                {
                    var t = lines[j].Trim();
                    if (t.StartsWith("Labels:{", StringComparison.Ordinal) && j + 1 < lines.Length && lines[j + 1].Trim().StartsWith("Annotations:{", StringComparison.Ordinal))
                    {
                        var annotations = lines[j + 1].Trim()["Annotations:".Length..].TrimEnd(',');
                        alerts.Add((Labels(t["Labels:".Length..]), Labels(annotations)));
                    }
                }

                AlertProbeResults[(alert, seconds)] = alerts;
            }
        }

        return unexpected;
    }

    /// <summary>Promtool's <c>{a="x", b="y"} 1E+00, {…} +Inf</c>: each series' labels and value.</summary>
    private static IEnumerable<(Dictionary<string, string>, string)> SeriesList(string text)
    {
        var i = 0;
        while (i < text.Length)
        {
            var open = text.IndexOf('{', i);
            if (open < 0)
            {
                yield break;
            }

            var close = Close(text, open);
            var comma = text.IndexOf(", {", close, StringComparison.Ordinal);
            var value = (comma < 0 ? text[(close + 1)..] : text[(close + 1)..comma]).Trim();
            yield return (Labels(text[open..(close + 1)]), value);
            i = comma < 0 ? text.Length : comma + 2;
        }
    }

    /// <summary>A <c>{name="value", …}</c> set (Go-quoted values).</summary>
    private static Dictionary<string, string> Labels(string braced)
    {
        var labels = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (Match m in LabelRegex().Matches(braced))
        {
            labels[m.Groups["name"].Value] = Regex.Unescape(m.Groups["value"].Value);
        }

        return labels;
    }

    private static int Close(string text, int open)
    {
        var quoted = false;
        for (var i = open + 1; i < text.Length; i++)
        {
            if (quoted && text[i] == '\\')
            {
                i++;
            }
            else if (text[i] == '"')
            {
                quoted = !quoted;
            }
            else if (text[i] == '}' && !quoted)
            {
                return i;
            }
        }

        throw new FormatException($"no closing brace in promtool's output: {text}");
    }

    private static int Seconds(string duration) =>
        (int)Math.Round(TimeSpanParse(duration).TotalSeconds);

    /// <summary>Go's duration text as promtool prints eval times (1m20s, 45s, 2m).</summary>
    private static TimeSpan TimeSpanParse(string text)
    {
        var total = TimeSpan.Zero;
        foreach (Match m in DurationPartRegex().Matches(text))
        {
            var n = double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture);
            total += m.Groups[2].Value switch
            {
                "h" => TimeSpan.FromHours(n),
                "m" => TimeSpan.FromMinutes(n),
                "ms" => TimeSpan.FromMilliseconds(n),
                _ => TimeSpan.FromSeconds(n),
            };
        }

        return total;
    }

    private static string Tail(string text) => text.Length <= 4000 ? text : text[^4000..];

    [GeneratedRegex(@"^\s*expr: ""(?<expr>(?:[^""\\]|\\.)*)"", time: (?<time>[0-9a-z.]+),")]
    private static partial Regex ExprFailureRegex();

    [GeneratedRegex(@"^\s*alertname: (?<alert>\w+), time: (?<time>[0-9a-z.]+),")]
    private static partial Regex AlertFailureRegex();

    [GeneratedRegex(@"(?<name>[a-zA-Z_][a-zA-Z0-9_]*)=""(?<value>(?:[^""\\]|\\.)*)""")]
    private static partial Regex LabelRegex();

    [GeneratedRegex(@"([0-9.]+)(ms|h|m|s)")]
    private static partial Regex DurationPartRegex();

    /// <summary>An alert's state at each evaluation as runs: "none 0-44 s, pending 45-69 s, firing 70-110 s".</summary>
    public static string Timeline(string?[] states)
    {
        var parts = new List<string>();
        for (var t = 0; t < states.Length;)
        {
            var end = t;
            while (end + 1 < states.Length && states[end + 1] == states[t])
            {
                end++;
            }

            parts.Add($"{states[t] ?? "none"} {t}-{end} s");
            t = end + 1;
        }

        return string.Join(", ", parts);
    }
}

using System.Net;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Tests.Hosting;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// Issue 35 item 2: every alert's runbook_url pointed at docs/alerts.md, a path only a clone of the repository has, so
/// someone paged from an archive, image or Helm install had no runbook. Now each link is, by default, this version's
/// docs/alerts.md in the public repository (build/set-version.sh keeps the version), or the external label
/// runbook_base_url, which the Compose stack sets to the monitor's own /docs/alerts.md (every build serves its docs
/// there) and the Helm chart to prometheusRule.runbookBaseUrl. Every anchor is a section of docs/alerts.md, and the
/// monitor's page carries it.
/// </summary>
[Collection("host")]
public partial class RunbookLinkTests
{
    private static string RepositoryVersion() =>
        XDocument.Load(DeployFiles.Path("Directory.Build.props")).Descendants("VersionPrefix").Single().Value;

    private static string DefaultBase() => $"https://github.com/logflushmonitor/logflushmonitor/blob/v{RepositoryVersion()}/docs/alerts.md";

    /// <summary>(alert, runbook_url template) of every alert in <paramref name="rulesYaml"/>.</summary>
    private static List<(string Alert, string Runbook)> Runbooks(string rulesYaml)
    {
        var groups = DeployFiles.List(DeployFiles.At(DeployFiles.ReadYaml(rulesYaml), "groups"), "groups");
        return
        [
            .. groups.SelectMany(g => DeployFiles.List(DeployFiles.At(g, "rules"), "rules"))
                .Where(r => DeployFiles.Text(r, "alert") is not null)
                .Select(r => (DeployFiles.Text(r, "alert")!, DeployFiles.Text(r, "annotations", "runbook_url") ?? "")),
        ];
    }

    [Fact]
    public void Every_runbook_link_is_a_section_of_docs_alerts_md_of_this_version_unless_Prometheus_names_another_base()
    {
        var anchors = MarkdownHtml.Anchors(File.ReadAllText(DeployFiles.Path("docs", "alerts.md")));
        var runbooks = Runbooks(File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "alerts.yml")));
        Assert.Equal(17, runbooks.Count);
        foreach (var (alert, runbook) in runbooks)
        {
            var m = RunbookRegex().Match(runbook);
            Assert.True(m.Success, $"{alert}: runbook_url '{runbook}' is not {{{{ or $externalLabels.runbook_base_url \"<default>\" }}}}#<anchor>");
            Assert.Equal(DefaultBase(), m.Groups["default"].Value);
            Assert.Equal(alert.ToLowerInvariant(), m.Groups["anchor"].Value);
            Assert.Contains(m.Groups["anchor"].Value, anchors);
        }

        // The runbook section of each alert is under "The alerts", one heading per alert, named as the alert.
        var headings = File.ReadAllLines(DeployFiles.Path("docs", "alerts.md")).Where(l => l.StartsWith("### ", StringComparison.Ordinal)).Select(l => l[4..]).ToList();
        Assert.All(runbooks, r => Assert.Contains(r.Alert, headings));
    }

    [Fact]
    public void The_default_runbook_link_follows_the_version_and_the_kubernetes_copies_and_rule_tests_say_the_same()
    {
        foreach (var file in new[] { "deploy/helm/logflushmonitor/files/alerts.yml", "deploy/kubernetes/prometheusrule.yaml", "deploy/prometheus/alerts.test.yml" })
        {
            var text = File.ReadAllText(DeployFiles.Path(file));
            var bases = VersionedBaseRegex().Matches(text).Select(m => m.Value).Distinct().ToList();
            Assert.True(bases.Count == 1 && bases[0] == DefaultBase(), $"{file} links {string.Join(", ", bases)}, not {DefaultBase()}");
        }

        // The rule tests expect the default on every firing alert but the one that sets runbook_base_url.
        Assert.DoesNotContain("runbook_url: \"docs/alerts.md", File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "alerts.test.yml")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_monitor_serves_every_runbook_section_at_the_address_the_compose_stack_gives_Prometheus()
    {
        // deploy/prometheus/prometheus.yml (the Compose stack) sends Prometheus's alerts with runbook_base_url =
        // http://localhost:9464/docs/alerts.md: the monitor's published port on the Docker host.
        var config = DeployFiles.ReadYaml(File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "prometheus.yml")));
        var runbookBase = new Uri(DeployFiles.Text(config, "global", "external_labels", "runbook_base_url")!);
        Assert.Equal("http://localhost:9464/docs/alerts.md", runbookBase.ToString());
        Assert.Contains("\"127.0.0.1:9464:9464\"", File.ReadAllText(DeployFiles.Path("docker-compose.yml")), StringComparison.Ordinal);

        await using var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "autocommit" });
        using var response = await host.Http.GetAsync(new Uri(runbookBase.AbsolutePath, UriKind.Relative));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/html", response.Content.Headers.ContentType?.MediaType);
        var page = await response.Content.ReadAsStringAsync();
        foreach (var (alert, _) in Runbooks(File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "alerts.yml"))))
        {
            Assert.Contains($"<h3 id=\"{alert.ToLowerInvariant()}\">", page, StringComparison.Ordinal);
        }

        // The page is the Markdown of this build: the runbook's own words are there.
        Assert.Contains("this is a storage incident, not a workload one", page, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Every_link_of_every_page_the_monitor_serves_resolves_on_the_monitor_with_its_anchor()
    {
        await using var host = await RunningHost.StartAsync(new() { ["Sources:Simulate:Scenario"] = "autocommit" });
        // From the index, every page the monitor serves is reached, and every link on each resolves (200) with its
        // '#anchor' an id of the page it lands on.
        var pending = new Queue<string>(["/docs/"]);
        var seen = new HashSet<string>(StringComparer.Ordinal) { "/docs/" };
        var ids = new Dictionary<string, HashSet<string>>(StringComparer.Ordinal);
        var fragments = new List<(string From, string Path, string Anchor)>();
        while (pending.TryDequeue(out var path))
        {
            using var response = await host.Http.GetAsync(new Uri(path, UriKind.Relative));
            Assert.True(response.StatusCode == HttpStatusCode.OK, $"{path}: {(int)response.StatusCode}");
            if (response.Content.Headers.ContentType?.MediaType != "text/html")
            {
                continue;
            }

            var html = await response.Content.ReadAsStringAsync();
            ids[path] = [.. IdRegex().Matches(html).Select(m => WebUtility.HtmlDecode(m.Groups[1].Value))];
            foreach (Match m in HrefRegex().Matches(html))
            {
                var href = WebUtility.HtmlDecode(m.Groups[1].Value);
                if (href.StartsWith("http", StringComparison.Ordinal) || href.StartsWith("mailto:", StringComparison.Ordinal))
                {
                    continue;
                }

                var target = new Uri(new Uri("http://monitor" + path), href);
                if (target.Fragment.Length > 1)
                {
                    fragments.Add((path, target.AbsolutePath, Uri.UnescapeDataString(target.Fragment[1..])));
                }

                if (seen.Add(target.AbsolutePath))
                {
                    pending.Enqueue(target.AbsolutePath);
                }
            }
        }

        Assert.Contains("/docs/alerts.md", seen);
        Assert.Contains("/README.md", seen);
        Assert.Contains("/docs/images/report.png", seen);
        Assert.All(DocsEndpoints.Paths.Where(p => p.EndsWith(".md", StringComparison.Ordinal)), p => Assert.Contains("/" + p, seen));
        Assert.All(fragments, f => Assert.True(ids[f.Path].Contains(f.Anchor), $"{f.From} links {f.Path}#{f.Anchor}, which has no such id"));
    }

    [SkippableFact]
    public async Task The_helm_chart_points_every_runbook_link_at_runbookBaseUrl_when_it_is_set()
    {
        var helm = Tool.RequireHelm();
        var (code, stdout, stderr) = await Tool.RunAsync(helm, ["template", "lfm", DeployFiles.Path("deploy", "helm", "logflushmonitor"), "--set", "prometheusRule.runbookBaseUrl=https://wiki.example.org/dba/logflushmonitor-alerts.md"]);
        Assert.True(code == 0, stderr);
        var rule = KubeObjects.Single([.. DeployFiles.ReadYamlDocuments(stdout).Where(d => d is not null).Select(d => DeployFiles.Map(d, "object"))], "PrometheusRule");
        var groups = DeployFiles.List(DeployFiles.At(rule, "spec", "groups"), "groups");
        var runbooks = groups.SelectMany(g => DeployFiles.List(DeployFiles.At(g, "rules"), "rules"))
            .Where(r => DeployFiles.Text(r, "alert") is not null)
            .Select(r => DeployFiles.Text(r, "annotations", "runbook_url")!)
            .ToList();
        Assert.Equal(17, runbooks.Count);
        Assert.All(runbooks, r => Assert.Equal("https://wiki.example.org/dba/logflushmonitor-alerts.md", RunbookRegex().Match(r).Groups["default"].Value));

        // Unset, the chart keeps the default of alerts.yml.
        (code, stdout, stderr) = await Tool.RunAsync(helm, ["template", "lfm", DeployFiles.Path("deploy", "helm", "logflushmonitor")]);
        Assert.True(code == 0, stderr);
        Assert.Equal(17, Regex.Count(stdout, Regex.Escape($"runbook_base_url \"{DefaultBase()}\"")));
    }

    [GeneratedRegex(@"^\{\{ or \$externalLabels\.runbook_base_url ""(?<default>[^""]+)"" \}\}#(?<anchor>[a-z0-9-]+)$")]
    private static partial Regex RunbookRegex();

    [GeneratedRegex(@"https://github\.com/logflushmonitor/logflushmonitor/blob/v[^/]+/docs/alerts\.md")]
    private static partial Regex VersionedBaseRegex();

    [GeneratedRegex(@"\bid=""([^""]+)""")]
    private static partial Regex IdRegex();

    [GeneratedRegex(@"\b(?:href|src)=""([^""]+)""")]
    private static partial Regex HrefRegex();
}

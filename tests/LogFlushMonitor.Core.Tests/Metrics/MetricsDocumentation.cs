using System.Globalization;
using System.Text;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Prometheus.Exposition;

namespace LogFlushMonitor.Core.Tests.Metrics;

/// <summary>
/// Generates the tables of docs/metrics.md from <see cref="MetricCatalog"/>: each sits between
/// <c>&lt;!-- generated: section --&gt;</c> and <c>&lt;!-- end generated --&gt;</c>, the prose around them is written by hand.
/// <c>LFM_UPDATE_DOCS=1</c> makes <see cref="MetricsDocumentationTests"/> write them.
/// </summary>
internal static class MetricsDocumentation
{
    public const string End = "<!-- end generated -->";

    public static string Begin(MetricSection section) => $"<!-- generated: {Marker(section)} -->";

    /// <summary>The table of one section: header and one row per family, in catalog order.</summary>
    public static string Table(MetricSection section)
    {
        var text = new StringBuilder();
        text.Append("| metric | kind, unit | attributes | meaning | Prometheus | PromQL |\n");
        text.Append("| --- | --- | --- | --- | --- | --- |\n");
        foreach (var family in MetricCatalog.All.Where(f => f.Section == section))
        {
            text.Append(CultureInfo.InvariantCulture, $"| `{family.Name}` | {KindAndUnit(family)} | {AttributeList(family)} | {family.Meaning} | {PrometheusName(family)} | {family.PromQL} |\n");
        }

        return text.ToString();
    }

    /// <summary><paramref name="document"/> with every generated table replaced by what the catalog says now.</summary>
    public static string Regenerate(string document)
    {
        foreach (var section in Enum.GetValues<MetricSection>())
        {
            var begin = document.IndexOf(Begin(section), StringComparison.Ordinal);
            if (begin < 0)
            {
                throw new InvalidOperationException($"docs/metrics.md has no '{Begin(section)}' marker: every section of the catalog has a table there.");
            }

            var start = begin + Begin(section).Length + 1;
            var end = document.IndexOf(End, start, StringComparison.Ordinal);
            document = string.Concat(document.AsSpan(0, start), Table(section), document.AsSpan(end));
        }

        return document;
    }

    /// <summary>The family's Prometheus name as the exporter renders it.</summary>
    public static string FamilyName(MetricDefinition family) =>
        PrometheusNames.FamilyName(family.Name, family.Unit, isCounter: family.Kind == MetricKind.Counter, isGauge: family.Kind == MetricKind.Gauge, addTotalSuffix: true);

    private static string PrometheusName(MetricDefinition family) => family.Kind == MetricKind.Histogram
        ? $"`{FamilyName(family)}_bucket`, `_sum`, `_count`"
        : $"`{FamilyName(family)}`";

    private static string KindAndUnit(MetricDefinition family)
    {
        var kind = family.Kind.ToString().ToLowerInvariant();
        if (family.Buckets is not { } buckets)
        {
            return $"{kind}, `{family.Unit}`";
        }

        // Seconds read better as milliseconds at these sizes.
        return family.Unit == "s"
            ? $"{kind}, `s`; buckets {string.Join(", ", buckets.Select(b => (b * 1000).ToString("G10", CultureInfo.InvariantCulture)))} ms"
            : $"{kind}, `{family.Unit}`; buckets {string.Join(", ", buckets.Select(b => b.ToString("G10", CultureInfo.InvariantCulture)))}";
    }

    private static string AttributeList(MetricDefinition family)
    {
        var names = new List<string>();
        foreach (var attribute in family.Attributes)
        {
            switch (attribute)
            {
                case MetricAttributes.Instance:
                    names.Add("instance");
                    break;
                case MetricAttributes.Database:
                    names.Add("database");
                    break;
                case MetricAttributes.CounterObject:
                    break;
                case MetricAttributes.AvailabilityGroup:
                    names.Add("availability group");
                    break;
                case MetricAttributes.Replica:
                    names.Add("replica");
                    break;
                case MetricAttributes.ReplicaRole:
                    names.Add("role");
                    break;
                case MetricAttributes.AvailabilityMode:
                    names.Add("availability mode");
                    break;
                case MetricAttributes.LogReuseWait:
                    names.Add("log reuse wait");
                    break;
                case MetricAttributes.CounterName:
                    names.Add("counter object and name");
                    break;
                case MetricAttributes.ServiceTier:
                    names.Add("service tier");
                    break;
                case MetricAttributes.ServiceObjective:
                    names.Add("service objective");
                    break;
                case MetricAttributes.LogRateComponent:
                    names.Add("Hyperscale component");
                    break;
                default:
                    names.Add(attribute);
                    break;
            }
        }

        return names.Count == 0 ? "none" : string.Join(", ", names);
    }

    private static string Marker(MetricSection section) => section switch
    {
        MetricSection.Events => "events",
        MetricSection.Counters => "counters",
        MetricSection.InstanceCounters => "instance-counters",
        MetricSection.WaitStats => "wait-stats",
        MetricSection.FileStats => "file-stats",
        MetricSection.InFlight => "in-flight",
        MetricSection.CommitTime => "commit-time",
        MetricSection.LogRate => "log-rate",
        MetricSection.Replicas => "replicas",
        MetricSection.LogSpace => "log-space",
        _ => "monitor",
    };
}

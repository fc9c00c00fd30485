using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

[Collection("metrics")]
public class MetricsDocumentationTests
{
    private static string RepoFile(string relative)
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
            {
                return Path.Combine(dir.FullName, relative);
            }
        }

        throw new InvalidOperationException("LogFlushMonitor.sln not found above " + AppContext.BaseDirectory);
    }

    private static List<Instrument> Instruments()
    {
        var found = new List<Instrument>();
        using var metrics = new MetricsHarness();
        using var listener = new MeterListener
        {
            InstrumentPublished = (i, _) =>
            {
                // This harness's meter only (its factory is the scope): other tests' meters share the name.
                if (i.Meter.Name == LogFlushMetrics.MeterName && ReferenceEquals(i.Meter.Scope, metrics.MeterFactory))
                {
                    found.Add(i);
                }
            },
        };
        listener.Start();
        return found;
    }

    [Fact]
    public void The_tables_of_docs_metrics_md_are_the_ones_the_catalog_generates()
    {
        var path = RepoFile("docs/metrics.md");
        var document = File.ReadAllText(path).ReplaceLineEndings("\n");
        var generated = MetricsDocumentation.Regenerate(document);
        if (Environment.GetEnvironmentVariable("LFM_UPDATE_DOCS") == "1")
        {
            File.WriteAllText(path, generated);
            document = generated;
        }

        var expected = generated.Split('\n');
        var actual = document.Split('\n');
        var diff = actual.Except(expected).Select(l => "- " + l).Concat(expected.Except(actual).Select(l => "+ " + l)).Take(12).ToList();
        Assert.True(diff.Count == 0, "docs/metrics.md differs from the tables MetricCatalog generates (run this test with LFM_UPDATE_DOCS=1 to write them, then review the diff):\n" + string.Join("\n", diff));
    }

    [Fact]
    public void Every_instrument_on_the_meter_is_a_catalog_family_with_its_name_unit_kind_and_description()
    {
        var instruments = Instruments();
        Assert.Equal(MetricCatalog.All.Select(f => f.Name), instruments.Select(i => i.Name));
        foreach (var (family, instrument) in MetricCatalog.All.Zip(instruments))
        {
            Assert.Equal(family.Unit, instrument.Unit);
            Assert.Equal(family.Description, instrument.Description);
            Assert.False(string.IsNullOrWhiteSpace(family.Description), family.Name + " has no description");
            Assert.False(string.IsNullOrWhiteSpace(family.Meaning), family.Name + " has no meaning for docs/metrics.md");
            Assert.Matches("^sqlserver(\\.[a-z_]+)+$", family.Name);
            var kind = instrument.GetType().GetGenericTypeDefinition();
            Assert.Equal(
                family.Kind switch
                {
                    MetricKind.Counter => typeof(ObservableCounter<>),
                    MetricKind.Gauge => typeof(ObservableGauge<>),
                    _ => typeof(Histogram<>),
                },
                kind);
            Assert.Equal(family.IsInteger ? typeof(long) : typeof(double), instrument.GetType().GetGenericArguments()[0]);
        }
    }

    [Fact]
    public void Every_family_has_a_distinct_prometheus_name()
    {
        var names = MetricCatalog.All.Select(MetricsDocumentation.FamilyName).ToList();
        Assert.Equal(names.Count, names.Distinct(StringComparer.Ordinal).Count());
    }
}

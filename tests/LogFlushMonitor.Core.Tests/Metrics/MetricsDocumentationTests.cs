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
    public void Every_instrument_is_documented_with_its_unit_in_docs_metrics_md()
    {
        var doc = File.ReadAllText(RepoFile("docs/metrics.md"));
        var instruments = Instruments();
        Assert.Equal(46, instruments.Count); // 3 per-event histograms, 43 observable instruments
        Assert.All(instruments, i =>
        {
            Assert.Contains($"| `{i.Name}` |", doc, StringComparison.Ordinal);
            Assert.Contains($"`{i.Unit}`", doc, StringComparison.Ordinal);
            Assert.False(string.IsNullOrWhiteSpace(i.Description), i.Name + " has no description");
            Assert.Matches("^sqlserver(\\.[a-z_]+)+$", i.Name);
        });
    }
}

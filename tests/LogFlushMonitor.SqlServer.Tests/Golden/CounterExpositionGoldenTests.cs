using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Prometheus;
using LogFlushMonitor.SqlServer.Tests.Polling;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.SqlServer.Tests.Streaming;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace LogFlushMonitor.SqlServer.Tests.Golden;

/// <summary>
/// Real result-set shapes in (<see cref="RealCounterShapes"/>: a default and a named instance on Windows, a Linux
/// container, Azure SQL Database, Azure SQL Managed Instance), through the real SqlClient, the pollers, the aggregation,
/// the instruments and our Prometheus exporter, and the exact exposition out, compared with a reviewed file in this
/// folder (<c>*.prom</c>). A changed belief about what a server answers, or a changed export, shows as a diff of one of
/// these files. To accept a change on purpose: run with <c>LFM_UPDATE_GOLDEN=1</c>, then read the diff before committing.
/// Two polls 15 s apart (the second gives the cumulative counters an increase); target_info and the scope labels are
/// left out (they hold the process and the version, not the server's answer), and so is the process-wide count of
/// truncated attribute values.
/// </summary>
[Collection(MeterCollection.Name)]
public sealed class CounterExpositionGoldenTests
{
    [Theory]
    [InlineData("windows-default-instance", ServerShape.Windows, null, 3, false)]
    [InlineData("windows-named-instance", ServerShape.Windows, "SQL2022", 3, false)]
    [InlineData("linux-container", ServerShape.Linux, null, 3, false)]
    [InlineData("linux-container-every-counter", ServerShape.Linux, null, 3, true)]
    [InlineData("azure-sql-database", ServerShape.AzureSqlDatabase, null, 5, false)]
    [InlineData("azure-managed-instance", ServerShape.AzureManagedInstance, null, 8, false)]
    public async Task Exposition_of_a_real_shape_matches_its_reviewed_file(string name, ServerShape shape, string? instanceName, int engineEdition, bool everyCounter)
    {
        await using var server = new ScriptedSqlServer { Shape = shape, InstanceName = instanceName, EngineEdition = engineEdition };
        var text = await ExpositionAsync(server, shape == ServerShape.AzureSqlDatabase, everyCounter ? ["*"] : []);

        var path = Path.Combine(GoldenDirectory(), name + ".prom");
        if (Environment.GetEnvironmentVariable("LFM_UPDATE_GOLDEN") == "1")
        {
            await File.WriteAllTextAsync(path, text);
        }

        Assert.True(File.Exists(path), $"{path} is missing: run the test with LFM_UPDATE_GOLDEN=1 to write it, then review it.");
        var expected = (await File.ReadAllTextAsync(path)).ReplaceLineEndings("\n");
        if (expected != text)
        {
            var diff = expected.Split('\n').Except(text.Split('\n')).Take(8).Select(l => "- " + l)
                .Concat(text.Split('\n').Except(expected.Split('\n')).Take(8).Select(l => "+ " + l));
            Assert.Fail($"The exposition differs from {name}.prom (LFM_UPDATE_GOLDEN=1 rewrites it):\n{string.Join("\n", diff)}");
        }
    }

    /// <summary>Two polls of <paramref name="server"/> by the real poller into the real metrics, scraped once.</summary>
    internal static async Task<string> ExpositionAsync(ScriptedSqlServer server, bool azure, List<string> counters)
    {
        using var services = new ServiceCollection().AddMetrics().BuildServiceProvider();
        var meters = services.GetRequiredService<System.Diagnostics.Metrics.IMeterFactory>();
        var aggregator = new LogFlushAggregator(counters: CounterSelection.Create(counters));
        await using var h = new PollerHarness(server, o => o.Azure = azure, aggregator, fleet: f => f.Counters = counters);
        new LogFlushMetrics(meters, h.Health).ReadFrom(aggregator); // polls only: no event is recorded
        using var provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(LogFlushMetrics.MeterName)
            .AddPrometheusPullExporter(out var handler, o =>
            {
                o.TargetInfoEnabled = false;
                o.ScopeLabelsEnabled = false;
            })
            .Build();
        using (handler)
        {
            await h.PollAsync();
            await h.PollAsync();
            using var body = new MemoryStream();
            await handler.ScrapeToAsync(body);
            // The truncation count is process-wide (MetricAttributes): other tests in this process move it.
            return string.Join("\n", System.Text.Encoding.UTF8.GetString(body.ToArray()).ReplaceLineEndings("\n").Split('\n')
                .Where(l => !l.Contains("sqlserver_monitor_attributes_truncated", StringComparison.Ordinal)));
        }
    }

    private static string GoldenDirectory()
    {
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (dir is not null && !File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
        {
            dir = dir.Parent;
        }

        return Path.Combine(dir?.FullName ?? throw new InvalidOperationException("LogFlushMonitor.sln not found above " + AppContext.BaseDirectory),
            "tests", "LogFlushMonitor.SqlServer.Tests", "Golden");
    }
}

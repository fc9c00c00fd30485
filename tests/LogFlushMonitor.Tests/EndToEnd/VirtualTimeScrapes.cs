using System.Globalization;
using System.Text;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Core.XEvents;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Sources;
using LogFlushMonitor.Tests.Hosting;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// The service's own /metrics over a simulated scenario in virtual time: the real host (aggregation, metric catalog,
/// Prometheus exporter, HTTP endpoint) on a <see cref="ManualTimeProvider"/>, the scenario driven by the test through
/// the same sinks as <c>run --simulate</c> (the outstanding-flush tracker over the delivery-tracking waiting writer),
/// and /metrics read after every <c>step</c> of virtual time once the pipeline has applied everything: what a
/// Prometheus scraping every <c>step</c> would have stored, without waiting for the wall clock.
/// </summary>
internal sealed partial class VirtualTimeScrapes
{
    // What run --simulate's SimulationRunner advances between two waits for room.
    private static readonly TimeSpan Slice = TimeSpan.FromMilliseconds(100);

    private readonly Dictionary<string, Dictionary<int, string>> _series = new(StringComparer.Ordinal);

    private VirtualTimeScrapes(TimeSpan step, int steps)
    {
        Step = step;
        Steps = steps;
    }

    /// <summary>Virtual time between two scrapes.</summary>
    public TimeSpan Step { get; }

    /// <summary>Scrapes taken after the first (at 0): the last is at <see cref="Steps"/> × <see cref="Step"/>.</summary>
    public int Steps { get; }

    /// <summary>Every series scraped (exposition name and labels, plus the job and instance a scrape adds).</summary>
    public IReadOnlyCollection<string> Series => _series.Keys;

    /// <summary>The last scrape's exposition, as the endpoint wrote it.</summary>
    public string LastExposition { get; private set; } = "";

    /// <summary>
    /// Runs <paramref name="scenario"/> (its own seed) for <paramref name="duration"/> of virtual time in the host and
    /// scrapes its /metrics at 0 and after every <paramref name="step"/>.
    /// </summary>
    /// <param name="scenario">The scenario.</param>
    /// <param name="duration">Virtual time to run.</param>
    /// <param name="step">Virtual time between scrapes.</param>
    /// <param name="drainEachSlice">
    /// Waits for the pipeline to apply each slice's events before the next slice: polled rows reach the aggregation at
    /// once while events pass the pipeline's channel, so without it figures that compare the two (the agreement, the event
    /// loss ratio) depend on how far the consumer got. The golden outputs need them fixed.
    /// </param>
    /// <param name="settings">Configuration beside the scenario (Replicas:Behind:0:Replica, ...), or null.</param>
    public static async Task<VirtualTimeScrapes> RunAsync(string scenario, TimeSpan duration, TimeSpan step, bool drainEachSlice = false, IReadOnlyDictionary<string, string?>? settings = null)
    {
        var steps = (int)(duration / step);
        var result = new VirtualTimeScrapes(step, steps);
        var time = new ManualTimeProvider(new DateTimeOffset(2026, 11, 22, 12, 0, 0, TimeSpan.Zero));
        // Configured as `run --simulate <scenario>` (so the configuration is that of a simulating service), with the test,
        // not the wall-clock-paced source service, driving the scenario.
        var configuration = new Dictionary<string, string?>(settings ?? new Dictionary<string, string?>()) { ["Sources:Simulate:Scenario"] = scenario };
        await using var host = await RunningHost.StartAsync(configuration, services =>
        {
            services.AddSingleton<TimeProvider>(time);
            services.Remove(services.Single(d => d.ServiceType == typeof(IHostedService) && d.ImplementationType == typeof(SimulationSourceService)));
        });
        var sp = host.Host.Services;
        var pipeline = sp.GetRequiredService<SamplePipeline>();
        // As SimulationSourceService and SimulationRunner wire it: pairing before delivery tracking before the waiting writer.
        var sink = new OutstandingFlushTracker(new DeliveryTrackingSink(
            pipeline.CreateWaitingWriter(), sp.GetRequiredService<SourceHealth>(), sp.GetRequiredService<Readiness>(), ReadinessComponents.SimulateSource, time));
        var simulation = SimulationScenarios.Create(scenario);
        var origin = time.GetUtcNow().UtcDateTime;
        simulation.Start(origin);

        result.Add(0, await host.Http.GetStringAsync(new Uri("/metrics", UriKind.Relative)));
        for (var i = 1; i <= steps; i++)
        {
            var target = origin + (step * i);
            // The clock first, as a timer waking the runner would see it; then the scenario up to it in the runner's slices.
            time.Advance(target - time.GetUtcNow().UtcDateTime);
            while (simulation.NowUtc < target)
            {
                var next = simulation.NowUtc + Slice;
                simulation.Advance(next < target ? next : target, sink);
                await sink.WaitForRoomAsync(CancellationToken.None);
                if (drainEachSlice)
                {
                    await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(60));
                }
            }

            await pipeline.WaitForDrainAsync(TimeSpan.FromSeconds(60));
            result.Add(i, await host.Http.GetStringAsync(new Uri("/metrics", UriKind.Relative)));
        }

        return result;
    }

    /// <summary>
    /// The scrapes as promtool's <c>input_series</c> (YAML list items indented for a test group, one scrape per interval): a series missing from a
    /// scrape after it was seen is stale there (as Prometheus marks it), and absent (<c>_</c>) before it first appears.
    /// </summary>
    public string InputSeriesYaml()
    {
        var yaml = new StringBuilder();
        foreach (var (series, values) in _series.OrderBy(s => s.Key, StringComparer.Ordinal))
        {
            var seen = false;
            var text = new StringBuilder();
            for (var i = 0; i <= Steps; i++)
            {
                string v;
                if (values.TryGetValue(i, out var value))
                {
                    v = value;
                    seen = true;
                }
                else
                {
                    v = seen ? "stale" : "_";
                }

                text.Append(i == 0 ? "" : " ").Append(v);
            }

            yaml.Append("    - series: '").Append(series.Replace("'", "''", StringComparison.Ordinal)).Append("'\n")
                .Append("      values: '").Append(text).Append("'\n");
        }

        return yaml.ToString();
    }

    private void Add(int index, string exposition)
    {
        LastExposition = exposition;
        foreach (var raw in exposition.Split('\n'))
        {
            var line = raw.TrimEnd('\r');
            if (line.Length == 0 || line[0] == '#')
            {
                continue;
            }

            var (series, value) = ParseSample(line);
            if (!_series.TryGetValue(series, out var values))
            {
                _series[series] = values = [];
            }

            values[index] = value;
        }
    }

    /// <summary>One sample line of the text exposition: its series (with the scrape's job and instance) and its value for promtool.</summary>
    private static (string Series, string Value) ParseSample(string line)
    {
        string name;
        var labels = "";
        int rest;
        var brace = line.IndexOf('{', StringComparison.Ordinal);
        var space = line.IndexOf(' ', StringComparison.Ordinal);
        if (brace >= 0 && (space < 0 || brace < space))
        {
            name = line[..brace];
            var end = ClosingBrace(line, brace);
            labels = line[(brace + 1)..end];
            rest = end + 1;
        }
        else
        {
            name = line[..space];
            rest = space;
        }

        var value = line[rest..].Trim().Split(' ')[0];
        // What a scrape attaches (honor_labels false): the target's job and instance, an exposed one renamed exported_*.
        labels = ScrapeLabelRegex().Replace(labels, "${lead}exported_${name}=");
        labels = (labels.Length == 0 ? "" : labels.TrimEnd(',') + ",") + "instance=\"virtual:9464\",job=\"logflushmonitor\"";
        return ($"{name}{{{labels}}}", PromtoolValue(value, line));
    }

    private static int ClosingBrace(string line, int open)
    {
        var quoted = false;
        for (var i = open + 1; i < line.Length; i++)
        {
            var c = line[i];
            if (quoted && c == '\\')
            {
                i++;
            }
            else if (c == '"')
            {
                quoted = !quoted;
            }
            else if (c == '}' && !quoted)
            {
                return i;
            }
        }

        throw new FormatException($"no closing brace in the exposition line: {line}");
    }

    /// <summary>A value in promtool's series notation: plain decimals (its expanding notation reads a '+' as an increment).</summary>
    private static string PromtoolValue(string text, string line) => text switch
    {
        "+Inf" => "Inf",
        "-Inf" => "-Inf",
        "NaN" => "NaN",
        _ => double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var v)
            ? v.ToString("0.############################", CultureInfo.InvariantCulture)
            : throw new FormatException($"not a sample value '{text}' in the exposition line: {line}"),
    };

    [System.Text.RegularExpressions.GeneratedRegex(@"(?<lead>^|,)(?<name>job|instance)=")]
    private static partial System.Text.RegularExpressions.Regex ScrapeLabelRegex();
}

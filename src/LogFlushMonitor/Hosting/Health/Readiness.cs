using System.Collections.Concurrent;
using System.Text.Json;
using LogFlushMonitor.Core.Health;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// What /readyz reports: ready once the host has started, the pipeline runs, every configured source has delivered
/// once, and no source has been down for longer than the grace period (Http:ReadinessGracePeriod). The body names
/// each component's state as JSON. Components set their own state from any thread.
/// </summary>
/// <remarks>
/// A source either reports its first delivery itself (<see cref="Expect"/>, <see cref="Delivered"/>: the simulated
/// and replayed sources) or names its instances (<see cref="ExpectInstances"/>), whose state is read from
/// <see cref="SourceHealth"/>: an instance has delivered once any of its components succeeded, and is down when a
/// component fails and none has succeeded within the grace period.
/// </remarks>
public sealed class Readiness(SourceHealth health, TimeProvider time, TimeSpan gracePeriod) : ISourceReadiness
{
    private readonly ConcurrentDictionary<string, Component> _components = new(StringComparer.Ordinal);
    private volatile bool _started;

    /// <summary>How long a source may be down before readiness drops.</summary>
    public TimeSpan GracePeriod { get; } = gracePeriod;

    /// <summary>Marks a component as not ready, with the reason a probe shows (starting, stopping, failed).</summary>
    public void NotReady(string component, string reason) => Get(component).Blocked = reason;

    /// <summary>Marks a component as ready (lifts <see cref="NotReady"/>).</summary>
    public void Ready(string component) => Get(component).Blocked = null;

    /// <summary>A source that holds readiness back until it reports <see cref="Delivered"/>.</summary>
    public void Expect(string component) => Get(component).Waiting = true;

    /// <summary>The source delivered its first sample.</summary>
    public void Delivered(string component) => Get(component).Waiting = false;

    /// <summary>
    /// A source of these instances: each must deliver once, and none may stay down past the grace period (read from
    /// <see cref="SourceHealth"/>). Lifts <see cref="NotReady"/>.
    /// </summary>
    public void ExpectInstances(string component, IEnumerable<string> instances)
    {
        var c = Get(component);
        c.Instances = [.. instances];
        c.Blocked = null;
    }

    /// <summary>Called when the host has started every service.</summary>
    public void HostStarted() => _started = true;

    /// <summary>The state a probe sees: ready or not, and the JSON body naming each component's state.</summary>
    public (bool Ready, string Reason) Check()
    {
        var report = Report();
        return (report.Status == "ready", JsonSerializer.Serialize(report, ReadinessJsonContext.Default.ReadinessReport));
    }

    /// <summary>The state of every component.</summary>
    public ReadinessReport Report()
    {
        var now = time.GetUtcNow();
        var components = new SortedDictionary<string, ComponentReport>(StringComparer.Ordinal);
        var ready = _started;
        foreach (var (name, c) in _components)
        {
            var report = c.Report(health, now, GracePeriod);
            ready &= report.State is "ready" or "degraded";
            components[name] = report;
        }

        return new ReadinessReport(ready ? "ready" : _started ? "not_ready" : "starting", components);
    }

    private Component Get(string component) => _components.GetOrAdd(component, _ => new Component());

    private sealed class Component
    {
        public volatile string? Blocked;
        public volatile bool Waiting;
        public volatile string[]? Instances;

        public ComponentReport Report(SourceHealth health, DateTimeOffset now, TimeSpan grace)
        {
            if (Blocked is { } reason)
            {
                return new ComponentReport(reason, null, null);
            }

            if (Waiting)
            {
                return new ComponentReport("waiting", "no sample delivered yet", null);
            }

            if (Instances is not { } instances)
            {
                return new ComponentReport("ready", null, null);
            }

            var states = new SortedDictionary<string, string>(StringComparer.Ordinal);
            bool waiting = false, down = false, degraded = false;
            var problems = new List<string>();
            foreach (var instance in instances)
            {
                var (delivered, anyDown, last) = health.Instance(instance);
                // A problem a source names while it works (a watched database without counters) degrades, never downs.
                var named = health.Problems(instance);
                problems.AddRange(named.Select(p => instance + " " + p));
                var state = !delivered ? "waiting"
                    : anyDown && now - last > grace ? "down"
                    : anyDown || named.Count > 0 ? "degraded"
                    : "up";
                states[instance] = state;
                waiting |= state == "waiting";
                down |= state == "down";
                degraded |= state == "degraded";
            }

            return down ? new ComponentReport("down", $"an instance has been down for more than {grace}" + (problems.Count > 0 ? ": " + string.Join("; ", problems) : ""), states)
                : waiting ? new ComponentReport("waiting", "an instance has not delivered yet", states)
                : new ComponentReport(degraded ? "degraded" : "ready", problems.Count > 0 ? string.Join("; ", problems) : null, states);
        }
    }
}

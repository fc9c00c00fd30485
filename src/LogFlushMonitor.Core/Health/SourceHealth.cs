using System.Collections.Concurrent;

namespace LogFlushMonitor.Core.Health;

/// <summary>
/// Health of each source per instance: up or down, the last success, errors by kind, the collection mode and
/// automatic fallbacks. State only: Metrics.LogFlushMetrics exports it (sqlserver.monitor.*), readiness reads it.
/// </summary>
/// <remarks>Thread-safe: every source reports from its own thread; the metrics SDK reads at collection time.</remarks>
public sealed class SourceHealth
{
    private readonly ConcurrentDictionary<(string Instance, string Component), State> _states = new();
    private readonly ConcurrentDictionary<(string Instance, string Component, string Error), long> _errors = new();
    private readonly ConcurrentDictionary<string, string> _modes = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, long> _fallbacks = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<(string Instance, string Component, string Error), string> _problems = new();
    private readonly TimeProvider _time;

    /// <summary>Creates a registry; <paramref name="time"/> stamps each success.</summary>
    public SourceHealth(TimeProvider? time = null) => _time = time ?? TimeProvider.System;

    /// <summary>A component of an instance's source succeeded (a poll, a buffer read, a session check).</summary>
    public void Succeeded(string instance, string component)
    {
        var state = new State(true, _time.GetUtcNow());
        _states.AddOrUpdate((instance, component), state, (_, _) => state);
    }

    /// <summary>A component failed with an error of <paramref name="errorKind"/> (e.g. login_failed, permission, timeout, disconnected).</summary>
    public void Failed(string instance, string component, string errorKind)
    {
        _states.AddOrUpdate((instance, component), static _ => new State(false, null), static (_, s) => s with { Up = false });
        _errors.AddOrUpdate((instance, component, errorKind), 1, (_, n) => n + 1);
    }

    /// <summary>
    /// Names a problem a component has while it otherwise works (a watched database without counters), or clears it
    /// (<paramref name="problem"/> null). Each new or changed problem counts one error of <paramref name="errorKind"/>
    /// unless <paramref name="countError"/> is false (the caller counts it with <see cref="Failed"/> already); the
    /// problems are named in /readyz, whose instance state is then degraded (or down, when a component failed).
    /// </summary>
    public void SetProblem(string instance, string component, string errorKind, string? problem, bool countError = true)
    {
        var key = (instance, component, errorKind);
        if (problem is null)
        {
            _problems.TryRemove(key, out _);
            return;
        }

        if (_problems.TryGetValue(key, out var known) && known == problem)
        {
            return;
        }

        _problems[key] = problem;
        if (countError)
        {
            _errors.AddOrUpdate(key, 1, (_, n) => n + 1);
        }
    }

    /// <summary>The problems named for an instance now, as "component: problem", in a stable order.</summary>
    public IReadOnlyList<string> Problems(string instance) =>
        [.. _problems.Where(kv => kv.Key.Instance == instance).Select(kv => $"{kv.Key.Component}: {kv.Value}").Order(StringComparer.Ordinal)];

    /// <summary>The collection mode an instance uses now (stream or histogram).</summary>
    public void SetMode(string instance, string mode) => _modes[instance] = mode;

    /// <summary>An instance fell back to another mode by itself.</summary>
    public void FellBack(string instance) => _fallbacks.AddOrUpdate(instance, 1, (_, n) => n + 1);

    /// <summary>Whether a component is up now (false when it never reported).</summary>
    public bool IsUp(string instance, string component) => _states.TryGetValue((instance, component), out var s) && s.Up;

    /// <summary>
    /// How an instance's source fares as a whole, for readiness: whether any component ever succeeded, whether any is
    /// down now, and the last success of any component.
    /// </summary>
    public (bool Delivered, bool AnyDown, DateTimeOffset? LastSuccessUtc) Instance(string instance)
    {
        bool delivered = false, anyDown = false;
        DateTimeOffset? last = null;
        foreach (var (key, state) in _states)
        {
            if (key.Instance != instance)
            {
                continue;
            }

            anyDown |= !state.Up;
            if (state.LastSuccessUtc is { } t)
            {
                delivered = true;
                last = last is { } l && l > t ? l : t;
            }
        }

        return (delivered, anyDown, last);
    }

    /// <summary>Errors counted for a component and kind.</summary>
    public long Errors(string instance, string component, string errorKind) => _errors.GetValueOrDefault((instance, component, errorKind));

    /// <summary>The mode of an instance, or null.</summary>
    public string? Mode(string instance) => _modes.GetValueOrDefault(instance);

    /// <summary>Every component that reported, with its state now.</summary>
    public IEnumerable<(string Instance, string Component, bool Up, DateTimeOffset? LastSuccessUtc)> Components()
    {
        foreach (var (key, state) in _states)
        {
            yield return (key.Instance, key.Component, state.Up, state.LastSuccessUtc);
        }
    }

    /// <summary>Errors counted per instance, component and kind.</summary>
    public IEnumerable<(string Instance, string Component, string Error, long Count)> ErrorCounts()
    {
        foreach (var (key, count) in _errors)
        {
            yield return (key.Instance, key.Component, key.Error, count);
        }
    }

    /// <summary>The collection mode of each instance that set one.</summary>
    public IEnumerable<(string Instance, string Mode)> Modes()
    {
        foreach (var (instance, mode) in _modes)
        {
            yield return (instance, mode);
        }
    }

    /// <summary>Automatic fallbacks counted per instance.</summary>
    public IEnumerable<(string Instance, long Count)> FallbackCounts()
    {
        foreach (var (instance, count) in _fallbacks)
        {
            yield return (instance, count);
        }
    }

    /// <summary>Last success of a component in the UTC clock of this registry, or null.</summary>
    public DateTimeOffset? LastSuccess(string instance, string component) => _states.TryGetValue((instance, component), out var s) ? s.LastSuccessUtc : null;

    /// <summary>
    /// One component's state, immutable: a writer swaps in a new one, so a collector on another thread reads the flag
    /// and the time of one moment, never half of a <see cref="DateTimeOffset"/> being written.
    /// </summary>
    private sealed record State(bool Up, DateTimeOffset? LastSuccessUtc);
}

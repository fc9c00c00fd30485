using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Simulation;

/// <summary>
/// A simulated workload on one or more SQL Server instances, in virtual time: it produces the same typed
/// samples a live source and the DMV pollers would (events, counters, wait stats, file stats, start times,
/// poll completions), consistent with each other. Created by <see cref="SimulationScenarios.Create"/>.
/// </summary>
/// <remarks>
/// Not thread-safe: one caller advances it. Samples are delivered synchronously to the sink passed to
/// <see cref="Advance"/>; the per-event path allocates nothing. A flush's log_flush_complete and WRITELOG wait
/// carry their completion time, which may lie up to one write latency after the step that produced them.
/// Polls happen at the start time and every <see cref="SimulationOptions.PollInterval"/> after it.
/// </remarks>
public sealed class WorkloadSimulation
{
    private readonly List<SimulatedInstance> _instances;
    private readonly long _stepTicks;
    private readonly long _pollTicks;
    private long _now;
    private long _nextPoll;

    internal WorkloadSimulation(string scenario, SimulationOptions options, List<SimulatedInstance> instances)
    {
        Scenario = scenario;
        Options = options;
        _instances = instances;
        _stepTicks = options.Step.Ticks;
        _pollTicks = options.PollInterval.Ticks;
        Instances = instances.Select(i => i.Name).ToList();
    }

    /// <summary>The scenario name.</summary>
    public string Scenario { get; }

    /// <summary>The options it was created with.</summary>
    public SimulationOptions Options { get; }

    /// <summary>Names of the simulated instances.</summary>
    public IReadOnlyList<string> Instances { get; }

    /// <summary>True once <see cref="Start"/> (or <see cref="Run"/>) set the virtual start time.</summary>
    public bool IsStarted { get; private set; }

    /// <summary>Virtual start time (UTC).</summary>
    public DateTime StartUtc { get; private set; }

    /// <summary>Virtual time reached so far (UTC): every event that starts before it has been delivered.</summary>
    public DateTime NowUtc => new(_now, DateTimeKind.Utc);

    /// <summary>Sets the virtual start time. The first poll happens there, on the first <see cref="Advance"/>.</summary>
    /// <exception cref="InvalidOperationException">When already started.</exception>
    public void Start(DateTime startUtc)
    {
        if (IsStarted)
        {
            throw new InvalidOperationException("The simulation has already started.");
        }

        var start = AsUtc(startUtc).Ticks;
        StartUtc = new DateTime(start, DateTimeKind.Utc);
        _now = start;
        _nextPoll = start;
        foreach (var inst in _instances)
        {
            inst.Start(start);
        }

        IsStarted = true;
    }

    /// <summary>
    /// Delivers to <paramref name="sink"/> every event that starts before <paramref name="untilUtc"/> and every poll
    /// due at or before it. Calling it with a time already reached does nothing. Step-wise, so a host can pace it.
    /// </summary>
    /// <exception cref="InvalidOperationException">When not started.</exception>
    public void Advance(DateTime untilUtc, ISampleSink sink)
    {
        ArgumentNullException.ThrowIfNull(sink);
        if (!IsStarted)
        {
            throw new InvalidOperationException("Call Start before Advance.");
        }

        var until = AsUtc(untilUtc).Ticks;
        while (true)
        {
            foreach (var inst in _instances)
            {
                inst.ApplyChanges(_now);
            }

            if (_now >= _nextPoll)
            {
                foreach (var inst in _instances)
                {
                    inst.Poll(_nextPoll, sink);
                }

                _nextPoll += _pollTicks;
            }

            if (_now >= until)
            {
                return;
            }

            // Steps end exactly at polls and scheduled changes, so a poll counts exactly the events before it.
            var end = Math.Min(Math.Min(_now + _stepTicks, until), _nextPoll);
            foreach (var inst in _instances)
            {
                end = Math.Min(end, inst.NextChange(_now));
            }

            foreach (var inst in _instances)
            {
                inst.Generate(_now, end, sink);
            }

            _now = end;
        }
    }

    /// <summary>Starts at <paramref name="startUtc"/> and runs <paramref name="duration"/> of virtual time as fast as possible.</summary>
    public void Run(DateTime startUtc, TimeSpan duration, ISampleSink sink)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(duration, TimeSpan.Zero);
        Start(startUtc);
        Advance(StartUtc + duration, sink);
    }

    private static DateTime AsUtc(DateTime t) => t.Kind switch
    {
        DateTimeKind.Local => t.ToUniversalTime(),
        DateTimeKind.Unspecified => DateTime.SpecifyKind(t, DateTimeKind.Utc),
        _ => t,
    };
}

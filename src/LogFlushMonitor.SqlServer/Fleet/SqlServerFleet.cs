using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Fleet;

/// <summary>
/// The instances of this replica's shard (<see cref="Shard"/>), each a <see cref="SqlServerInstance"/> with its own
/// tasks, connections and timeouts: one that fails or hangs never stalls another.
/// </summary>
public sealed class SqlServerFleet
{
    /// <summary>The component /readyz names for the SQL Server source.</summary>
    public const string ReadinessComponent = "source:sqlserver";

    private readonly SqlServerSourceOptions _options;
    private readonly IEventSink _events;
    private readonly IPollSink _polls;
    private readonly SourceHealth _health;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly Func<string, string?>? _environment;
    private readonly Dictionary<string, SqlServerInstance> _instances = new(StringComparer.Ordinal);
    private readonly HashSet<string> _running = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();

    /// <summary>Creates a fleet; <see cref="SqlServerOptionsValidator"/> must have passed.</summary>
    /// <param name="options">The Sources:SqlServer options.</param>
    /// <param name="events">Where the live streams deliver (the pipeline's dropping writer: it never waits).</param>
    /// <param name="polls">Where polled rows and histogram buckets go (the pipeline's polled side).</param>
    /// <param name="health">Counts successes and errors by kind.</param>
    /// <param name="logger">Lines name the instance, never its connection string.</param>
    /// <param name="time">Clock for intervals, backoff and timestamps.</param>
    /// <param name="environment">Environment lookup for ConnectionStringEnvironmentVariable (tests replace it).</param>
    public SqlServerFleet(SqlServerSourceOptions options, IEventSink events, IPollSink polls, SourceHealth health, ILogger logger, TimeProvider? time = null,
        Func<string, string?>? environment = null)
    {
        _options = options;
        _events = events;
        _polls = polls;
        _health = health;
        _logger = logger;
        _time = time ?? TimeProvider.System;
        _environment = environment;
        Shard = Shard.Parse(options.Shard);
        Selected = options.Instances.Where(i => Shard.Owns(i.Name)).ToList();
    }

    /// <summary>This replica's shard.</summary>
    public Shard Shard { get; }

    /// <summary>The instances this replica watches.</summary>
    public IReadOnlyList<SqlServerInstanceOptions> Selected { get; }

    /// <summary>The retry policy's random source for every instance (tests give a fixed one); null = shared random.</summary>
    public Func<double>? Random { get; init; }

    /// <summary>An instance once it runs, else null.</summary>
    public SqlServerInstance? Instance(string name)
    {
        lock (_gate)
        {
            return _instances.GetValueOrDefault(name);
        }
    }

    /// <summary>The instances whose tasks have not ended yet (a shutdown names those it had to abandon).</summary>
    public IReadOnlyList<string> Running
    {
        get
        {
            lock (_gate)
            {
                return [.. _running];
            }
        }
    }

    /// <summary>Runs every selected instance (its polls and its events) until <paramref name="cancellationToken"/> fires.</summary>
    public Task RunAsync(CancellationToken cancellationToken) => RunAsync(cancellationToken, static (instance, ct) => instance.RunAsync(ct));

    /// <summary>Runs only the DMV polls of every selected instance (tests of the pollers).</summary>
    public Task RunPollsAsync(CancellationToken cancellationToken) => RunAsync(cancellationToken, static (instance, ct) => instance.RunPollsAsync(ct));

    private Task RunAsync(CancellationToken cancellationToken, Func<SqlServerInstance, CancellationToken, Task> run)
    {
        SqlServerLog.ShardSelected(_logger, Shard.ToString(), Selected.Count, _options.Instances.Count, string.Join(", ", Selected.Select(i => i.Name)));
        return Task.WhenAll(Selected.Select(i => Task.Run(() => RunInstanceAsync(i, run, cancellationToken), CancellationToken.None)));
    }

    private async Task RunInstanceAsync(SqlServerInstanceOptions options, Func<SqlServerInstance, CancellationToken, Task> run, CancellationToken cancellationToken)
    {
        SqlServerInstance instance;
        try
        {
            instance = new SqlServerInstance(options, _options, _events, _polls, _health, _logger, _time, _environment, Random);
        }
        catch (InvalidOperationException e)
        {
            // The message names the setting, never the value. Nothing to retry until the configuration changes.
            _health.Failed(options.Name, InstancePoller.Component, SqlErrorKinds.Configuration);
            SqlServerLog.InstanceInvalid(_logger, options.Name, e.Message);
            return;
        }

        using (instance)
        {
            lock (_gate)
            {
                _instances[options.Name] = instance;
                _running.Add(options.Name);
            }

            try
            {
                await run(instance, cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                lock (_gate)
                {
                    _running.Remove(options.Name);
                }
            }
        }
    }
}

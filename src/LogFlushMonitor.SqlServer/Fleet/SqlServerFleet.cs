using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using Microsoft.Extensions.Logging;
using LogFlushMonitor.SqlServer.Resilience;

namespace LogFlushMonitor.SqlServer.Fleet;

/// <summary>
/// Runs the DMV pollers of many instances in one process: each selected instance (see <see cref="Shard"/>) has
/// its own task, connection and timeouts, so one failing or hanging instance never stalls another. A failed poll
/// is retried through <see cref="SourceRetryPipeline"/>, the retry shape every SQL Server source shares.
/// </summary>
public sealed class SqlServerFleet
{
    private readonly SqlServerSourceOptions _options;
    private readonly IPollSink _sink;
    private readonly SourceHealth _health;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly Func<string, string?>? _environment;
    private readonly Dictionary<string, InstancePoller> _pollers = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();

    /// <summary>Creates a fleet; <see cref="SqlServerOptionsValidator"/> must have passed.</summary>
    /// <param name="options">The Sources:SqlServer options.</param>
    /// <param name="sink">Where every poller delivers (the pipeline's polled side).</param>
    /// <param name="health">Counts successes and errors by kind.</param>
    /// <param name="logger">Lines name the instance, never its connection string.</param>
    /// <param name="time">Clock for intervals, backoff and timestamps.</param>
    /// <param name="environment">Environment lookup for ConnectionStringEnvironmentVariable (tests replace it).</param>
    public SqlServerFleet(SqlServerSourceOptions options, IPollSink sink, SourceHealth health, ILogger logger, TimeProvider? time = null, Func<string, string?>? environment = null)
    {
        _options = options;
        _sink = sink;
        _health = health;
        _logger = logger;
        _time = time ?? TimeProvider.System;
        _environment = environment;
        Shard = Shard.Parse(options.Shard);
        Selected = options.Instances.Where(i => Shard.Owns(i.Name)).ToList();
        Backoff = new ReconnectBackoff(options.ReconnectDelay, options.MaxReconnectDelay);
    }

    /// <summary>This replica's shard.</summary>
    public Shard Shard { get; }

    /// <summary>The instances this replica watches.</summary>
    public IReadOnlyList<SqlServerInstanceOptions> Selected { get; }

    /// <summary>The reconnect backoff (tests give it a fixed random source).</summary>
    public ReconnectBackoff Backoff { get; init; }

    /// <summary>The poller of an instance once its loop has started, else null.</summary>
    public InstancePoller? Poller(string instance)
    {
        lock (_gate)
        {
            return _pollers.GetValueOrDefault(instance);
        }
    }

    /// <summary>Polls every selected instance until <paramref name="cancellationToken"/> fires.</summary>
    public Task RunAsync(CancellationToken cancellationToken)
    {
        SqlServerLog.ShardSelected(_logger, Shard.ToString(), Selected.Count, _options.Instances.Count, string.Join(", ", Selected.Select(i => i.Name)));
        return Task.WhenAll(Selected.Select(i => Task.Run(() => RunInstanceAsync(i, cancellationToken), CancellationToken.None)));
    }

    private async Task RunInstanceAsync(SqlServerInstanceOptions instance, CancellationToken cancellationToken)
    {
        string connectionString;
        try
        {
            connectionString = ConnectionStrings.Resolve(instance, _environment);
        }
        catch (InvalidOperationException e)
        {
            // The message names the setting, never the value. Nothing to retry until the configuration changes.
            _health.Failed(instance.Name, InstancePoller.Component, SqlErrorKinds.Configuration);
            SqlServerLog.InstanceInvalid(_logger, instance.Name, e.Message);
            return;
        }

        var interval = instance.PollInterval ?? _options.PollInterval;
        SqlServerLog.InstanceStarted(_logger, instance.Name, interval, ConnectionStrings.Describe(connectionString));
        await using var poller = new InstancePoller(instance, connectionString, _options, _sink, _health, _logger, _time);
        lock (_gate)
        {
            _pollers[instance.Name] = poller;
        }

        var reporter = new SourceFailureReporter(instance.Name, _health, _logger);
        var pipeline = SourceRetryPipeline.Build(Backoff, _time, reporter, static () => InstancePoller.Component,
            e => FailureClassifier.Classify(e, poller.LostConnection));
        try
        {
            while (true)
            {
                await pipeline.ExecuteAsync(static async (p, ct) => await p.PollOnceAsync(ct).ConfigureAwait(false), poller, cancellationToken).ConfigureAwait(false);
                reporter.Recovered(InstancePoller.Component);
                // A delay after each poll, not a periodic timer: after a long outage a timer's missed tick would
                // fire at once and give the next rate an interval of a few milliseconds.
                await Task.Delay(interval, _time, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (Exception) when (cancellationToken.IsCancellationRequested)
        {
            // Stopping: SqlClient reports a cancelled command as a SqlException, not as OperationCanceledException.
        }
    }
}

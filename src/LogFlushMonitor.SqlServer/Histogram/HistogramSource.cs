using System.Data;
using Dapper;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.SqlServer.Streaming;
using LogFlushMonitor.XEvent.Xml;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Logging;
using Polly;

namespace LogFlushMonitor.SqlServer.Histogram;

/// <summary>One histogram session: its name and the database it covers (null id = instance-wide, "(all)").</summary>
public sealed record HistogramTarget(string SessionName, int? DatabaseId, string DatabaseName)
{
    /// <summary>The database name used for the instance-wide target.</summary>
    public const string AllDatabases = "(all)";
}

/// <summary>
/// Histogram mode: package0.histogram targets on log_flush_start.write_size, bucketed by the server and polled.
/// Per database (one small session each, <c>database_id = N</c>) while the watched databases number at most
/// <see cref="EventSourceSettings.MaxHistogramSessions"/>; otherwise, and on Azure SQL Database, one instance-wide
/// session reported under the database "(all)". Each poll's increase of each slot is delivered once, as a
/// <see cref="FlushBucketSample"/> (write size = the slot's value, count = its increase, timestamp = poll time): a
/// polled row that goes straight to the aggregation, which adds it to the exact distribution and the exported
/// histogram with its weight.
/// </summary>
public sealed class HistogramSource
{
    /// <summary>The SourceHealth component of histogram polls.</summary>
    public const string Component = SourceComponents.Histogram;

    private readonly SqlServerInstanceOptions _instance;
    private readonly string _connectionString;
    private readonly IPollSink _sink;
    private readonly SourceHealth _health;
    private readonly EventSourceSettings _settings;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly EventSessionManager _sessions;
    private readonly Dictionary<string, HistogramDeltas> _deltas = new(StringComparer.Ordinal);
    private readonly HashSet<string> _used = new(StringComparer.Ordinal);
    private readonly ResiliencePipeline _retry;
    private readonly SourceFailureReporter _reporter;
    private bool _lostConnection;

    /// <summary>Creates the source; <paramref name="sink"/> receives one bucket per slot that grew, per poll.</summary>
    public HistogramSource(SqlServerInstanceOptions instance, string connectionString, IPollSink sink, SourceHealth health,
        EventSourceSettings? settings = null, TimeProvider? time = null, ILogger? logger = null)
    {
        _instance = instance;
        _connectionString = connectionString;
        _sink = sink;
        _health = health;
        _settings = settings ?? new EventSourceSettings();
        _time = time ?? TimeProvider.System;
        _logger = logger ?? NullLogger.Instance;
        _sessions = new EventSessionManager(instance, _logger) { CommandTimeoutSeconds = _settings.CommandTimeoutSeconds };
        _reporter = new SourceFailureReporter(instance.Name, health, _logger);
        _retry = SourceRetryPipeline.Build(new ReconnectBackoff(_settings.ReconnectDelay, _settings.MaxReconnectDelay), _time, _reporter,
            static () => Component, e => FailureClassifier.Classify(e, _lostConnection));
    }

    /// <summary>Whether the last attempt opened its connection (false after a connection attempt failed).</summary>
    public bool Reachable { get; private set; }

    /// <summary>Sessions this source created or used (to stop or drop at shutdown).</summary>
    public IReadOnlyCollection<string> SessionNames => _used;

    /// <summary>Flushes delivered so far.</summary>
    public long FlushesDelivered { get; private set; }

    /// <summary>Readings that said truncated="1" (more distinct values than slots: counts incomplete).</summary>
    public long TruncatedReadings { get; private set; }

    /// <summary>Completed polls (all targets read).</summary>
    public long Polls { get; private set; }

    /// <summary>The targets for a database selection (per database up to <paramref name="maxSessions"/>, else one "(all)").</summary>
    public static IReadOnlyList<HistogramTarget> Plan(string sessionName, DatabaseSelection databases, bool azure, int maxSessions)
    {
        ArgumentNullException.ThrowIfNull(databases);
        if (!azure && databases.Names.Count > 0 && databases.Names.Count <= maxSessions)
        {
            return [.. databases.Names.OrderBy(kv => kv.Key).Select(kv => new HistogramTarget($"{sessionName}_h{kv.Key}", kv.Key, kv.Value))];
        }

        return [new HistogramTarget(sessionName + "_h", null, HistogramTarget.AllDatabases)];
    }

    /// <summary>Polls until cancelled, reconnecting through <see cref="SourceRetryPipeline"/>.</summary>
    public async Task RunAsync(CancellationToken cancellationToken)
    {
        try
        {
            await _retry.ExecuteAsync(AttemptAsync, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }
    }

    private async ValueTask AttemptAsync(CancellationToken cancellationToken)
    {
        _lostConnection = false;
        var connection = await SqlConnections.OpenAsync(_connectionString, reachable => Reachable = reachable, cancellationToken).ConfigureAwait(false);
        await using (connection.ConfigureAwait(false))
        {
            try
            {
                var capabilities = await _sessions.ReadCapabilitiesAsync(connection, cancellationToken).ConfigureAwait(false);
                if (!capabilities.HasHistogramTarget || !capabilities.HasFlushStart || !capabilities.FlushStartHasWriteSize)
                {
                    throw new NotSupportedException("This server's XE catalog lacks package0.histogram or log_flush_start.write_size.");
                }

                var databases = await _sessions.ResolveDatabasesAsync(connection, cancellationToken).ConfigureAwait(false);
                var targets = Plan(_sessions.SessionName, databases, _instance.Azure, _settings.MaxHistogramSessions);
                XeLog.HistogramMode(_logger, _instance.Name, targets.Count, targets[0].DatabaseId is null ? "instance-wide" : "per database");
                foreach (var target in targets)
                {
                    XeSessionName.Validate(target.SessionName);
                    _used.Add(target.SessionName);
                    var action = await _sessions.EnsureAsync(connection, target.SessionName,
                        () => _sessions.BuildHistogramSessionDdl(target.SessionName, target.DatabaseId, target.DatabaseId is null ? databases : null, _settings.HistogramSlots),
                        cancellationToken).ConfigureAwait(false);
                    if (action != SessionAction.None)
                    {
                        Deltas(target.SessionName).CountFromZero();
                    }
                }

                while (true)
                {
                    foreach (var target in targets)
                    {
                        await PollAsync(connection, target, cancellationToken).ConfigureAwait(false);
                    }

                    Polls++;
                    _health.Succeeded(_instance.Name, Component);
                    _reporter.Recovered(Component);
                    await Task.Delay(_settings.HistogramPollInterval, _time, cancellationToken).ConfigureAwait(false);
                }
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // Counted and logged by the retry pipeline's reporter, which needs to know whether the connection went.
                _lostConnection = connection.State != ConnectionState.Open;
                throw;
            }
        }
    }

    private async Task PollAsync(SqlConnection connection, HistogramTarget target, CancellationToken cancellationToken)
    {
        var xml = _instance.Azure
            ? await connection.QueryFirstOrDefaultAsync<string?>(XeSql.DatabaseHistogramData, new { name = target.SessionName, cancellationToken }, commandTimeout: _settings.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryFirstOrDefaultAsync<string?>(XeSql.ServerHistogramData, new { name = target.SessionName, cancellationToken }, commandTimeout: _settings.CommandTimeoutSeconds).ConfigureAwait(false);
        if (xml is null)
        {
            // Not running (a DBA stopped or dropped it): fail the attempt so the reconnect re-creates it.
            throw new SessionMissingException($"Histogram session {target.SessionName} is not running.");
        }

        var content = XEventXmlReader.ReadHistogram(xml, target.SessionName);
        if (content.Truncated)
        {
            TruncatedReadings++;
            XeLog.HistogramTruncated(_logger, _instance.Name, target.SessionName);
        }

        var now = _time.GetUtcNow().UtcDateTime;
        var dbId = target.DatabaseId ?? 0;
        FlushesDelivered += Deltas(target.SessionName).Apply(content, (value, increase) =>
            _sink.OnFlushBucket(new FlushBucketSample(_instance.Name, now, dbId, target.DatabaseName, (uint)Math.Clamp(value, 0, uint.MaxValue), increase)));
    }

    private HistogramDeltas Deltas(string session)
    {
        if (!_deltas.TryGetValue(session, out var d))
        {
            d = new HistogramDeltas();
            _deltas[session] = d;
        }

        return d;
    }
}

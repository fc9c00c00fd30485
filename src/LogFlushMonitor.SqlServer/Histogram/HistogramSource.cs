using System.Data;
using Dapper;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.SqlServer.Streaming;
using LogFlushMonitor.XEvent.Xml;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Histogram;

/// <summary>One histogram session: its name and the database it covers (null id = instance-wide, "(all)").</summary>
public sealed record HistogramTarget(string SessionName, int? DatabaseId, string DatabaseName)
{
    /// <summary>The database name used for the instance-wide target.</summary>
    public const string AllDatabases = "(all)";
}

/// <summary>
/// Histogram mode, a part of <see cref="SqlServerInstance"/> (which owns its connection string, session manager,
/// failure reporter and retry policy): package0.histogram targets on log_flush_start.write_size, bucketed by the server
/// and polled every poll interval. Per database (one small session each, <c>database_id = N</c>) while the watched
/// databases number at most <see cref="SqlServerSourceOptions.MaxHistogramSessions"/>; otherwise, and on Azure SQL
/// Database, one instance-wide session reported under the database "(all)". Each poll's increase of each slot is
/// delivered once, as a <see cref="FlushBucketRow"/> (write size = the slot's value, count = its increase,
/// timestamp = poll time): a polled row that goes straight to the aggregation, which adds it to the exact distribution
/// and the exported histogram with its weight.
/// </summary>
public sealed class HistogramSource
{
    /// <summary>The SourceHealth component of histogram polls.</summary>
    public const string Component = SourceComponents.Histogram;

    private readonly SqlServerInstance _owner;
    private readonly IPollSink _sink;
    private readonly Dictionary<string, HistogramDeltas> _deltas = new(StringComparer.Ordinal);
    private readonly HashSet<string> _used = new(StringComparer.Ordinal);

    /// <summary>Creates the histogram part of <paramref name="owner"/>; <paramref name="sink"/> receives one bucket per slot that grew, per poll.</summary>
    internal HistogramSource(SqlServerInstance owner, IPollSink sink)
    {
        _owner = owner;
        _sink = sink;
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

    /// <summary>Polls until cancelled, reconnecting through the instance's <see cref="InstanceRetry"/>.</summary>
    public async Task RunAsync(CancellationToken cancellationToken)
    {
        try
        {
            await _owner.Retry.ExecuteAsync(AttemptAsync, Component, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }
    }

    private async ValueTask<bool> AttemptAsync(InstanceRetry.Attempt attempt, CancellationToken cancellationToken)
    {
        var sessions = _owner.Sessions;
        var connection = await _owner.DataSource.OpenAsync(reachable => Reachable = reachable, cancellationToken).ConfigureAwait(false);
        await using (connection.ConfigureAwait(false))
        {
            try
            {
                var capabilities = await sessions.ReadCapabilitiesAsync(connection, cancellationToken).ConfigureAwait(false);
                if (!capabilities.HasHistogramTarget || !capabilities.HasFlushStart || !capabilities.FlushStartHasWriteSize)
                {
                    throw new NotSupportedException("This server's XE catalog lacks package0.histogram or log_flush_start.write_size.");
                }

                var databases = await sessions.ResolveDatabasesAsync(connection, cancellationToken).ConfigureAwait(false);
                var targets = Plan(sessions.SessionName, databases, _owner.Options.Azure, _owner.Fleet.MaxHistogramSessions);
                XeLog.HistogramMode(_owner.Logger, _owner.Name, targets.Count, targets[0].DatabaseId is null ? "instance-wide" : "per database");
                foreach (var target in targets)
                {
                    XeSessionName.Validate(target.SessionName);
                    _used.Add(target.SessionName);
                    var action = await sessions.EnsureAsync(connection, target.SessionName,
                        () => sessions.BuildHistogramSessionDdl(target.SessionName, target.DatabaseId, target.DatabaseId is null ? databases : null, _owner.Fleet.HistogramSlots),
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
                    _owner.Health.Succeeded(_owner.Name, Component);
                    _owner.Reporter.Recovered(Component);
                    await Task.Delay(_owner.PollInterval, _owner.Time, cancellationToken).ConfigureAwait(false);
                }
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // Counted and logged by the retry policy's reporter, which needs to know whether the connection went.
                attempt.ConnectionLost = connection.State != ConnectionState.Open;
                throw;
            }
        }
    }

    private async Task PollAsync(SqlConnection connection, HistogramTarget target, CancellationToken cancellationToken)
    {
        var xml = _owner.Options.Azure
            ? await connection.QueryFirstOrDefaultAsync<string?>(XeSql.DatabaseHistogramData, new { name = target.SessionName, cancellationToken }, commandTimeout: _owner.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryFirstOrDefaultAsync<string?>(XeSql.ServerHistogramData, new { name = target.SessionName, cancellationToken }, commandTimeout: _owner.CommandTimeoutSeconds).ConfigureAwait(false);
        if (xml is null)
        {
            // Not running (a DBA stopped or dropped it): fail the attempt so the reconnect re-creates it.
            throw new SessionMissingException($"Histogram session {target.SessionName} is not running.");
        }

        var content = XEventXmlReader.ReadHistogram(xml, target.SessionName);
        if (content.Truncated)
        {
            TruncatedReadings++;
            XeLog.HistogramTruncated(_owner.Logger, _owner.Name, target.SessionName);
        }

        var now = _owner.Time.GetUtcNow().UtcDateTime;
        var dbId = target.DatabaseId ?? 0;
        var buckets = new List<FlushBucketRow>();
        FlushesDelivered += Deltas(target.SessionName).Apply(content, (value, increase) =>
            buckets.Add(new FlushBucketRow(dbId, target.DatabaseName, (uint)Math.Clamp(value, 0, uint.MaxValue), increase)));
        if (buckets.Count > 0)
        {
            _sink.OnBatch(SignalRegistry.FlushBuckets.Batch(_owner.Name, now, [.. buckets], endsPoll: false));
        }
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

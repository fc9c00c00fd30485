using System.Data;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Resilience;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Polls one instance's signals into an <see cref="IPollSink"/> over one connection, reused between polls and opened
/// again when broken: each signal of <see cref="SignalRegistry.All"/> that reads this server (its
/// <see cref="Signal.NewPoller"/>), in that order (the start time first, so the aggregation sees a restart before the
/// rows; sys.databases before the signals that read its list). Nothing here knows one signal from another.
/// </summary>
/// <remarks>Not thread-safe: one loop per instance calls <see cref="PollOnceAsync"/>.</remarks>
public sealed class InstancePoller : IAsyncDisposable
{
    /// <summary>The component name reported to <see cref="SourceHealth"/>.</summary>
    public const string Component = SourceComponents.Poller;

    private readonly SqlServerDataSource _source;
    private readonly SourceHealth _health;
    private readonly ILogger _logger;
    private readonly PollContext _context;
    private readonly bool _azure;
    private readonly Dictionary<string, string> _failing = new(StringComparer.Ordinal);
    private (Signal Signal, SignalPoller Poller)[] _pollers = [];
    private ServerProfile? _profile;
    private SqlConnection? _connection;

    /// <summary>Creates a poller; nothing connects until the first poll.</summary>
    /// <param name="source">The instance's data source (its options: name, databases, session, Azure; its connections).</param>
    /// <param name="fleet">Fleet options: the command timeout, the counters.</param>
    /// <param name="sink">Where samples go (the pipeline).</param>
    /// <param name="health">Where successes and errors by kind are counted.</param>
    /// <param name="logger">Log lines name the instance, never the connection string.</param>
    /// <param name="time">The clock for sample timestamps.</param>
    public InstancePoller(SqlServerDataSource source, SqlServerSourceOptions fleet, IPollSink sink, SourceHealth health, ILogger logger, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(source);
        var instance = source.Options;
        Name = instance.Name;
        _source = source;
        _health = health;
        _logger = logger;
        _azure = instance.Azure;
        _context = new PollContext(instance.Name, sink, time, Math.Max(1, (int)Math.Ceiling(fleet.CommandTimeout.TotalSeconds)), logger,
            new SignalSettings(new DatabaseFilter(instance.IncludeDatabases, instance.ExcludeDatabases), CounterSelection.Create(fleet.Counters), instance.SessionName,
                QueryStore: new QueryStoreSettings { Databases = fleet.QueryStoreDatabases, Interval = fleet.QueryStoreInterval, Text = fleet.StatementText }),
            health);
    }

    /// <summary>The instance name.</summary>
    public string Name { get; }

    /// <summary>The instance's databases as last read from sys.databases.</summary>
    public IReadOnlyList<DatabaseInfo> Databases => _context.Databases ?? [];

    /// <summary>
    /// One poll of every signal the instance poller reads (<see cref="SignalRegistry.All"/>, in that order). A signal the
    /// server refuses on its own (a missing permission) or answers in a shape the signal cannot read is counted and logged
    /// and the others still run; when the connection cannot be opened, breaks, times out or anything else fails, the
    /// connection is discarded and the exception propagates so the caller backs off.
    /// </summary>
    public async Task PollOnceAsync(CancellationToken cancellationToken)
    {
        LostConnection = false;
        var connection = await OpenAsync(cancellationToken).ConfigureAwait(false);
        var allGood = true;
        foreach (var (signal, poller) in Pollers(connection))
        {
            try
            {
                await poller.PollAsync(connection, cancellationToken).ConfigureAwait(false);
                if (_failing.Remove(signal.Name))
                {
                    SqlServerLog.KindRecovered(_logger, Name, signal.Name);
                }

                allGood &= poller.Healthy;
            }
            catch (Exception e) when (e is SqlException or InvalidOperationException or IOException && !cancellationToken.IsCancellationRequested)
            {
                var lost = connection.State != ConnectionState.Open;
                var failure = FailureClassifier.Classify(e, lost);
                if (lost || e is not SqlException || failure.Class != FailureClass.Persistent)
                {
                    // The connection broke, or the failure is one a new connection after a backoff may cure: the caller retries.
                    LostConnection = lost;
                    await ResetAsync().ConfigureAwait(false);
                    throw;
                }

                allGood = false;
                Failing(signal, failure.Kind, e);
            }
            catch (StatementAnswerException e) when (connection.State == ConnectionState.Open)
            {
                // An answer of a shape the signal cannot read: that statement's series wait, the other signals go on.
                allGood = false;
                Failing(signal, SqlErrorKinds.Protocol, e);
            }
        }

        if (allGood)
        {
            _health.Succeeded(Name, Component);
        }
    }

    /// <summary>A signal's statement failed on its own: counted, and logged once while it lasts (a missing permission would repeat at every poll).</summary>
    private void Failing(Signal signal, string kind, Exception e)
    {
        _health.Failed(Name, Component, kind);
        var message = SqlServerLog.Safe(e);
        if (!_failing.TryGetValue(signal.Name, out var previous) || previous != message)
        {
            _failing[signal.Name] = message;
            SqlServerLog.KindFailed(_logger, Name, signal.Name, kind, message);
        }
    }

    /// <summary>The signals' pollers for the server of <paramref name="connection"/>, made on the first poll (and again if the server changed version).</summary>
    private (Signal Signal, SignalPoller Poller)[] Pollers(SqlConnection connection)
    {
        var profile = ServerProfile.Of(_azure, connection.ServerVersion);
        if (_profile != profile)
        {
            _profile = profile;
            _pollers = [.. SignalRegistry.All.Select(s => (Signal: s, Poller: s.NewPoller(_context, profile))).Where(p => p.Poller is not null).Select(p => (p.Signal, p.Poller!))];
        }

        return _pollers;
    }

    /// <summary>
    /// Runs every signal's poll once on <paramref name="connection"/>, exactly as <see cref="PollOnceAsync"/> does, and
    /// returns each signal's failure (null when it worked) instead of retrying or logging: what <c>check</c> reports.
    /// </summary>
    internal async Task<IReadOnlyList<(Signal Signal, Exception? Failure)>> ProbeAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        var results = new List<(Signal, Exception?)>();
        foreach (var (signal, poller) in Pollers(connection))
        {
            try
            {
                await poller.PollAsync(connection, cancellationToken).ConfigureAwait(false);
                results.Add((signal, null));
            }
            catch (Exception e) when (e is SqlException or InvalidOperationException or StatementAnswerException && !cancellationToken.IsCancellationRequested)
            {
                results.Add((signal, e));
                if (connection.State != ConnectionState.Open)
                {
                    break;
                }
            }
        }

        return results;
    }

    /// <summary>Whether the last failed poll lost its connection (an exception of any type then means a broken connection).</summary>
    public bool LostConnection { get; private set; }

    /// <summary>Closes the connection.</summary>
    public async ValueTask DisposeAsync() => await ResetAsync().ConfigureAwait(false);

    private async Task<SqlConnection> OpenAsync(CancellationToken cancellationToken)
    {
        if (_connection is { State: ConnectionState.Open })
        {
            return _connection;
        }

        await ResetAsync().ConfigureAwait(false);
        var connection = await _source.OpenAsync(cancellationToken).ConfigureAwait(false);
        _connection = connection;
        SqlServerLog.Connected(_logger, Name, connection.ServerVersion);
        return connection;
    }

    private async Task ResetAsync()
    {
        if (_connection is { } c)
        {
            _connection = null;
            // A broken connection must not come back from the pool on the next open.
            SqlConnection.ClearPool(c);
            await c.DisposeAsync().ConfigureAwait(false);
        }
    }
}

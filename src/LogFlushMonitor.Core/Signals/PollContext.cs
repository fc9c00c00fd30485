using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// What the signals' pollers of one instance share: where the rows go, the clock, the command timeout, the log, the
/// instance's settings, and what one signal read for the others (the databases of sys.databases). One per watched
/// instance (and one per <c>check</c>); the pollers of an instance run one after the other, never at once.
/// </summary>
/// <param name="instance">The instance name as configured (exported as sqlserver.instance.name).</param>
/// <param name="sink">Where the batches go (the pipeline's polls).</param>
/// <param name="time">The clock for the batches' timestamps.</param>
/// <param name="commandTimeoutSeconds">The command timeout of every statement.</param>
/// <param name="logger">Log lines name the instance, never the connection string.</param>
/// <param name="settings">The instance's settings the signals read.</param>
/// <param name="health">Where a poller reports a named problem of its instance (null in <c>check</c>, which reports itself).</param>
public sealed class PollContext(string instance, IPollSink sink, TimeProvider time, int commandTimeoutSeconds, ILogger logger, SignalSettings settings, SourceHealth? health = null)
{
    private readonly Dictionary<(string Statement, string Column), bool> _nullsLogged = [];

    /// <summary>The instance name as configured.</summary>
    public string Instance { get; } = instance;

    /// <summary>Where the batches go.</summary>
    public IPollSink Sink { get; } = sink;

    /// <summary>The clock.</summary>
    public TimeProvider Time { get; } = time;

    /// <summary>Now, as stamped on the batches of a poll.</summary>
    public DateTime UtcNow => Time.GetUtcNow().UtcDateTime;

    /// <summary>The command timeout of every statement, seconds.</summary>
    public int CommandTimeoutSeconds { get; } = commandTimeoutSeconds;

    /// <summary>The instance's log.</summary>
    public ILogger Logger { get; } = logger;

    /// <summary>The instance's settings.</summary>
    public SignalSettings Settings { get; } = settings;

    /// <summary>Which databases the instance watches.</summary>
    public DatabaseFilter Filter => Settings.Filter;

    /// <summary>Where a named problem of the instance goes, when someone listens (the service).</summary>
    public SourceHealth? Health { get; } = health;

    /// <summary>
    /// The databases as sys.databases listed them at the last read (all of them, watched or not); null before the first
    /// read and where the instance poller does not read the catalog (Azure SQL Database).
    /// </summary>
    public IReadOnlyList<DatabaseInfo>? Databases { get; set; }

    /// <summary>
    /// Log Bytes Flushed/sec (cumulative) of each watched database as the counters' last poll read it, by database name
    /// (ignoring case): what the Query Store poll ranks the databases by. Null before the first read.
    /// </summary>
    public IReadOnlyDictionary<string, long>? LogBytesFlushed { get; set; }

    /// <summary>Hands a batch to the sink.</summary>
    public void Deliver(SignalBatch batch) => Sink.OnBatch(batch);

    /// <summary>
    /// A row of <paramref name="statement"/> with NULL in <paramref name="column"/>, where a value must be: the row is
    /// skipped and counted as malformed (sqlserver.monitor.events.lost), and the column logged once for the instance.
    /// </summary>
    public void NullCell(string statement, string column)
    {
        Sink.OnSourceLoss(Instance, LossKind.Malformed, 1);
        if (_nullsLogged.TryAdd((statement, column), true))
        {
            SignalLog.NullCell(Logger, Instance, statement, column);
        }
    }
}

/// <summary>An instance's settings the signals read.</summary>
/// <param name="Filter">Which databases are watched.</param>
/// <param name="Counters">Which performance counters become series.</param>
/// <param name="SessionName">The monitor's event session (whose drops are read).</param>
/// <param name="ConfirmMissingCounters">
/// Whether a watched database must lack counters in two polls running before it is named (the service: one poll can race
/// a CREATE or DROP); <c>check</c> names it after one.
/// </param>
/// <param name="QueryStore">What the Query Store signal reads (null: <see cref="QueryStoreSettings.Default"/>).</param>
public sealed record SignalSettings(DatabaseFilter Filter, CounterSelection Counters, string SessionName, bool ConfirmMissingCounters = true, QueryStoreSettings? QueryStore = null)
{
    /// <summary>Every database, the default counters, session <c>LogFlushMonitor</c>.</summary>
    public static SignalSettings Default { get; } = new(DatabaseFilter.All, CounterSelection.Default, "LogFlushMonitor");

    /// <summary><see cref="QueryStore"/>, or the defaults.</summary>
    public QueryStoreSettings QueryStoreSettings => QueryStore ?? QueryStoreSettings.Default;
}

/// <summary>What the Query Store signal reads (<c>Sources:SqlServer:QueryStoreDatabases</c>, <c>QueryStoreInterval</c>, <c>StatementText</c>).</summary>
public sealed record QueryStoreSettings
{
    /// <summary>The defaults: the 10 busiest databases, every 5 minutes, with the statements' text.</summary>
    public static QueryStoreSettings Default { get; } = new();

    /// <summary>The most databases read per poll, the busiest by log bytes flushed since the previous one; 0 reads none.</summary>
    public int Databases { get; init; } = 10;

    /// <summary>How often Query Store is read (its statistics are per interval of minutes: reading it at every poll costs and adds nothing).</summary>
    public TimeSpan Interval { get; init; } = TimeSpan.FromMinutes(5);

    /// <summary>Whether the statements' text (first 200 characters) is read at all; false: it never leaves the server.</summary>
    public bool Text { get; init; } = true;
}

/// <summary>One signal's part of one instance's poll: sends its statements and delivers what it read.</summary>
public abstract class SignalPoller
{
    /// <summary>A poller over <paramref name="context"/>.</summary>
    protected SignalPoller(PollContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        Context = context;
    }

    /// <summary>What the instance's pollers share.</summary>
    protected PollContext Context { get; }

    /// <summary>
    /// One poll: sends the signal's statements on <paramref name="connection"/> and delivers the rows. A server error
    /// propagates (the instance poller decides whether it is the statement's or the connection's); an answer of the wrong
    /// shape is a <see cref="StatementAnswerException"/> naming the statement and the column.
    /// </summary>
    public abstract Task PollAsync(System.Data.Common.DbConnection connection, CancellationToken cancellationToken);

    /// <summary>Whether the last poll may count as a success of the instance's poller (false while a named problem lasts).</summary>
    public virtual bool Healthy => true;
}

/// <summary>
/// The server answered a statement with rows of a shape the signal cannot read (a column missing, a cell of another type,
/// two rows for one key where the view has one): a named failure of that statement, never a crash of the poll.
/// </summary>
public sealed class StatementAnswerException : Exception
{
    /// <summary>Creates the exception.</summary>
    public StatementAnswerException()
    {
    }

    /// <summary>Creates the exception with a message that names the statement and what is wrong.</summary>
    public StatementAnswerException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the reader's own exception.</summary>
    public StatementAnswerException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

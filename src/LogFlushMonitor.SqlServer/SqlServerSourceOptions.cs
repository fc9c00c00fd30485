using LogFlushMonitor.Configuration;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.SqlServer;

/// <summary>How events reach us from an instance.</summary>
public enum CollectionMode
{
    /// <summary>Stream every event and fall back to <see cref="Histogram"/> when the server keeps disconnecting us (25726).</summary>
    Auto,

    /// <summary>Stream every event live (sys.fn_MSxe_read_event_stream).</summary>
    Stream,

    /// <summary>Server-side package0.histogram targets on write_size, polled: cheap for the busiest servers.</summary>
    Histogram,
}

/// <summary>
/// The <c>Sources:SqlServer</c> section: the fleet of instances this process watches. Defaults and ranges are written
/// here once; the generated schema and validator read them (Fleet/SqlServerOptionsValidator.cs adds the rules between settings).
/// </summary>
[SettingsSection]
public sealed partial class SqlServerSourceOptions
{
    /// <summary>Instances to watch.</summary>
    [ValidateEnumeratedItems]
    public List<SqlServerInstanceOptions> Instances { get; set; } = [];

    /// <summary><c>i/n</c>: this replica watches the instances whose name hashes to shard i of n (1-based); empty = all.</summary>
    public string? Shard { get; set; }

    /// <summary>
    /// Performance counters of the Databases object to poll besides the log counters always polled (Log Flushes/sec,
    /// Log Bytes Flushed/sec, Log Flush Waits/sec, Log Flush Wait Time, Percent Log Used, Log File(s) Used Size (KB),
    /// Log File(s) Size (KB)): exact names or patterns with <c>*</c>, ignoring case, e.g. <c>Log Pool *</c> or
    /// <c>Transactions/sec</c>; <c>*</c> polls all of them (about 47 per database). Each counter costs one series per
    /// watched database and one per instance (docs/configuration.md).
    /// </summary>
    public List<string> Counters { get; set; } = [];

    /// <summary>
    /// Databases per instance whose Query Store is read for log bytes by statement: the busiest by log bytes flushed since
    /// the previous read (SQL Server 2017 and later, Azure; where Query Store is on). 0 reads none.
    /// </summary>
    [SettingRange(0, 1000)]
    public int QueryStoreDatabases { get; set; } = 10;

    /// <summary>
    /// How often Query Store is read. Its figures are kept per interval of minutes (INTERVAL_LENGTH_MINUTES, 60 by default)
    /// and flushed to disk every 15 minutes: reading it at each DMV poll would cost the server and add nothing.
    /// </summary>
    [SettingRange("00:01:00", "1.00:00:00")]
    public TimeSpan QueryStoreInterval { get; set; } = TimeSpan.FromMinutes(5);

    /// <summary>
    /// Whether the statements' text (the first 200 characters, without parameter declarations) is read from Query Store and
    /// shown in the log, analyze, report and check. false: no text leaves the server (the statement does not ask for it);
    /// statements are named by their query hash only. Text is never a metric label either way.
    /// </summary>
    public bool StatementText { get; set; } = true;

    /// <summary>DMV poll interval (an instance may override it).</summary>
    // A delay longer than about 49 days makes Task.Delay throw; nobody polls less than daily.
    [SettingRange("00:00:01", "1.00:00:00")]
    public TimeSpan PollInterval { get; set; } = TimeSpan.FromSeconds(15);

    /// <summary>Timeout of each polling statement.</summary>
    [SettingRange("00:00:01", "01:00:00")]
    public TimeSpan CommandTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Timeout of opening a connection.</summary>
    // SqlClient counts whole seconds and takes 0 as "wait for ever".
    [SettingRange("00:00:01", "00:10:00")]
    public TimeSpan ConnectTimeout { get; set; } = TimeSpan.FromSeconds(15);

    /// <summary>Longest wait between reconnection attempts (backoff is capped and jittered).</summary>
    [SettingRange("00:00:01", "1.00:00:00")]
    public TimeSpan MaxReconnectDelay { get; set; } = TimeSpan.FromMinutes(2);

    /// <summary>First backoff ceiling after a failure; it doubles per failed attempt up to <see cref="MaxReconnectDelay"/>.</summary>
    [SettingRange("00:00:00.001", "1.00:00:00", Hint = "at most MaxReconnectDelay")]
    public TimeSpan ReconnectDelay { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>Disconnections for slowness (25726) within <see cref="FallbackWindow"/> that switch an Auto instance to histogram mode.</summary>
    [SettingRange(1, 1000)]
    public int FallbackErrorCount { get; set; } = 3;

    /// <summary>The window of <see cref="FallbackErrorCount"/>.</summary>
    [SettingRange("00:00:01", "1.00:00:00")]
    public TimeSpan FallbackWindow { get; set; } = TimeSpan.FromMinutes(10);

    /// <summary>Slots of each histogram target (histogram mode).</summary>
    [SettingRange(16, 65536)]
    public int HistogramSlots { get; set; } = 256;

    /// <summary>Most per-database histogram sessions per instance; with more watched databases one instance-wide session, "(all)", is used.</summary>
    [SettingRange(0, 64)]
    public int MaxHistogramSessions { get; set; } = 8;

    /// <summary>Largest live-stream buffer accepted, in bytes (a larger one is skipped and counted).</summary>
    [SettingRange(1 << 20, 1 << 30)]
    public int MaxStreamBufferBytes { get; set; } = 64 << 20;

    /// <summary>How long stopping or dropping an instance's event sessions at shutdown may take.</summary>
    // The host gives all its services 15 s together to stop.
    [SettingRange("00:00:01", "00:00:10")]
    public TimeSpan ShutdownTimeout { get; set; } = TimeSpan.FromSeconds(10);
}

/// <summary>One instance. Exactly one of the connection string settings must be given.</summary>
[SettingsSection]
public sealed partial class SqlServerInstanceOptions
{
    /// <summary>The name exported as sqlserver.instance.name (unique in the fleet).</summary>
    [RequiredSetting("give each instance a unique name (it is exported as sqlserver.instance.name)")]
    public string Name { get; set; } = "";

    /// <summary>The connection string itself (prefer the environment variable or the file: it holds a secret).</summary>
    [Secret]
    public string? ConnectionString { get; set; }

    /// <summary>Name of an environment variable holding the connection string.</summary>
    public string? ConnectionStringEnvironmentVariable { get; set; }

    /// <summary>Path of a file holding the connection string (e.g. a mounted Kubernetes secret).</summary>
    public string? ConnectionStringFile { get; set; }

    /// <summary>Collection mode.</summary>
    public CollectionMode Mode { get; set; } = CollectionMode.Auto;

    /// <summary>Extended Events session name (letters, digits, '_' and '-').</summary>
    [SettingPattern("^[A-Za-z0-9_-]{1,128}$", "1 to 128 letters, digits, '_' or '-'")]
    public string SessionName { get; set; } = "LogFlushMonitor";

    /// <summary>Drop the event session when the monitor stops (otherwise it is stopped and left for the next start).</summary>
    public bool DropSessionOnStop { get; set; }

    /// <summary>Databases to watch; empty = all user databases (and tempdb).</summary>
    public List<string> IncludeDatabases { get; set; } = [];

    /// <summary>Databases never to watch.</summary>
    public List<string> ExcludeDatabases { get; set; } = [];

    /// <summary>Azure SQL Database: a database-scoped session and database-level permissions.</summary>
    public bool Azure { get; set; }

    /// <summary>Overrides <see cref="SqlServerSourceOptions.PollInterval"/>.</summary>
    [SettingRange("00:00:01", "1.00:00:00", Hint = "or leave it empty for Sources:SqlServer:PollInterval")]
    public TimeSpan? PollInterval { get; set; }

    /// <summary>Session MAX_MEMORY in KB (Microsoft, "CREATE EVENT SESSION", MAX_MEMORY; default 4 MB).</summary>
    [SettingRange(1, int.MaxValue)]
    public int MaxMemoryKb { get; set; } = 4096;

    /// <summary>Session MAX_DISPATCH_LATENCY in seconds.</summary>
    [SettingRange(1, int.MaxValue)]
    public int MaxDispatchLatencySeconds { get; set; } = 5;
}

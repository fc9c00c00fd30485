using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>
/// A SQL Server stand-in over <see cref="TdsTestServer"/>: answers the monitor's DMV statements with values that
/// grow at every poll, and can restart, lose or restore databases, deny permissions, reject logins, hang and cut.
/// The real SqlClient and Dapper talk to it over a socket. Partial: other parts add their own statements through
/// <see cref="AddEventSessionRules"/>, which runs after the fault rule and before the DMV rules.
/// </summary>
public sealed partial class ScriptedSqlServer : IAsyncDisposable
{
    private readonly Lock _gate = new();
    private readonly List<ScriptedDatabase> _databases = [];
    private readonly Dictionary<string, WaitRow> _waits = new(StringComparer.Ordinal);
    private readonly Dictionary<string, XeSessionRow> _xeSessions = new(StringComparer.Ordinal);
    private readonly HashSet<string> _denied = new(StringComparer.OrdinalIgnoreCase);
    private readonly List<(string Fragment, int Number, string Message)> _refusals = [];
    private (TimeSpan Delay, string? Fragment)? _hang;
    private (int Count, string? Fragment) _cuts;
    private DateTime _startLocal;
    private volatile bool _rejectLogins;

    /// <summary>
    /// Starts a server with master, tempdb, model, msdb and one user database named "sales"; with a
    /// <paramref name="certificate"/> it speaks TLS as <paramref name="encryption"/> says.
    /// </summary>
    public ScriptedSqlServer(TimeProvider? time = null, int port = 0, Action<TdsServerEvent>? onEvent = null,
        TdsEncryption encryption = TdsEncryption.NotSupported, System.Security.Cryptography.X509Certificates.X509Certificate2? certificate = null)
    {
        Server = new TdsTestServer.TdsTestServer(new TdsTestServerOptions
        {
            Port = port,
            TimeProvider = time ?? TimeProvider.System,
            OnEvent = onEvent,
            Authenticate = _ => !_rejectLogins,
            Encryption = encryption,
            Certificate = certificate,
        });
        _startLocal = new DateTime(2026, 11, 1, 6, 0, 0, DateTimeKind.Unspecified);
        foreach (var (id, name) in new[] { (1, "master"), (2, "tempdb"), (3, "model"), (4, "msdb"), (5, "sales") })
        {
            _databases.Add(new ScriptedDatabase(id, name) { FlushesPerPoll = id == 5 ? 100 : 1 });
        }

        _waits["WRITELOG"] = new WaitRow(50, 200);
        _waits["LOGBUFFER"] = new WaitRow(2, 5);
        _waits["LOG_RATE_GOVERNOR"] = new WaitRow(0, 0);
        _waits["POOL_LOG_RATE_GOVERNOR"] = new WaitRow(1, 3);
        _waits["HADR_SYNC_COMMIT"] = new WaitRow(0, 0); // every wait type has a row, at zero on an instance without a synchronous replica
        Server.Handle(Faults);
        AddWorkloadRules();
        AddEventSessionRules();
        AddDmvRules();
        AddCheckRules();
    }

    /// <summary>The TDS server underneath (requests, logins, events).</summary>
    public TdsTestServer.TdsTestServer Server { get; }

    /// <summary>The password of <see cref="ConnectionString"/>.</summary>
    public static string Password => TdsTestServer.TdsTestServer.DefaultPassword;

    /// <summary>Named instance (object_name prefix MSSQL$NAME:), or null for a default instance (SQLServer:).</summary>
    public string? InstanceName { get; set; }

    /// <summary>Server-local minus UTC; change it to model a DST change (the local start time stays).</summary>
    public TimeSpan UtcOffset { get; set; }

    /// <summary>sqlserver_start_time as UTC.</summary>
    public DateTime StartTimeUtc
    {
        get
        {
            lock (_gate)
            {
                return DateTime.SpecifyKind(_startLocal - UtcOffset, DateTimeKind.Utc);
            }
        }
    }

    /// <summary>Which kind of server the counters look like (<see cref="RealCounterShapes"/>); a Linux container by default.</summary>
    public ServerShape Shape { get; set; } = ServerShape.Linux;

    /// <summary>
    /// False: sys.dm_os_performance_counters returns no row at all, as on an instance whose counters were not registered
    /// at setup (Microsoft's page of the DMV; setup error 3409).
    /// </summary>
    public bool CountersRegistered { get; set; } = true;

    /// <summary>DB_NAME() of every connection: the database the monitor connects to (on Azure SQL Database, the one database it watches).</summary>
    public string CurrentDatabase { get; set; } = "sales";

    /// <summary>Adds the engine's internal counter instances of <see cref="Shape"/> (mssqlsystemresource, model_msdb, ...), as real servers do.</summary>
    public bool ShowInternalInstances { get; set; } = true;

    /// <summary>
    /// The version the login acknowledgement reports (SqlClient's <c>ServerVersion</c>, which picks a signal's statements):
    /// SQL Server 2019 RTM by default, whatever <see cref="ProductVersion"/> says.
    /// </summary>
    public Version LoginVersion { get => Server.Options.ProgramVersion; set => Server.Options.ProgramVersion = value; }

    /// <summary>SERVERPROPERTY('ProductVersion').</summary>
    public string ProductVersion { get; set; } = "16.0.4135.4";

    /// <summary>SERVERPROPERTY('Edition').</summary>
    public string Edition { get; set; } = "Developer Edition (64-bit)";

    /// <summary>SERVERPROPERTY('EngineEdition').</summary>
    public int EngineEdition { get; set; } = 3;

    /// <summary>Answers TRUE for sys.dm_exec_connections.encrypt_option of every connection; otherwise the truth (TLS after login).</summary>
    public bool Encrypted { get; set; }

    /// <summary>Permissions HAS_PERMS_BY_NAME grants (unless denied); others answer 0, names not in <see cref="KnownPermissions"/> NULL.</summary>
    public HashSet<string> HeldPermissions { get; } = new(StringComparer.OrdinalIgnoreCase)
    {
        "VIEW SERVER STATE", "VIEW SERVER PERFORMANCE STATE", "ALTER ANY EVENT SESSION", "VIEW DATABASE STATE", "ALTER ANY DATABASE EVENT SESSION",
    };

    /// <summary>Permission names this version knows; HAS_PERMS_BY_NAME answers NULL for others.</summary>
    public HashSet<string> KnownPermissions { get; } = new(StringComparer.OrdinalIgnoreCase)
    {
        "VIEW SERVER STATE", "VIEW SERVER PERFORMANCE STATE", "ALTER ANY EVENT SESSION", "VIEW DATABASE STATE", "ALTER ANY DATABASE EVENT SESSION",
        "VIEW ANY DEFINITION", "ALTER ANY DATABASE", "CREATE DATABASE", "CREATE ANY EVENT SESSION", "ALTER ANY EVENT SESSION ENABLE",
        "ALTER ANY EVENT SESSION DISABLE", "ALTER ANY EVENT SESSION ADD TARGET", "ALTER ANY EVENT SESSION DROP TARGET", "DROP ANY EVENT SESSION",
    };

    /// <summary>Every database, online or not (a snapshot).</summary>
    public IReadOnlyList<ScriptedDatabase> Databases
    {
        get
        {
            lock (_gate)
            {
                return [.. _databases];
            }
        }
    }

    /// <summary>A connection string for this server (pooling off, so a broken connection is really gone).</summary>
    public string ConnectionString(string user = "monitor", string? password = null) =>
        Server.ConnectionString(user, password ?? Password);

    /// <summary>A database by name.</summary>
    public ScriptedDatabase Database(string name)
    {
        lock (_gate)
        {
            return _databases.Single(d => d.Name == name);
        }
    }

    /// <summary>Creates a database with the next free id.</summary>
    public ScriptedDatabase AddDatabase(string name)
    {
        lock (_gate)
        {
            var db = new ScriptedDatabase(_databases.Max(d => d.Id) + 1, name);
            _databases.Add(db);
            return db;
        }
    }

    /// <summary>DROP DATABASE: its rows vanish from every DMV.</summary>
    public void DropDatabase(string name)
    {
        lock (_gate)
        {
            _databases.RemoveAll(d => d.Name == name);
        }
    }

    /// <summary>ALTER DATABASE ... SET OFFLINE: listed in sys.databases, absent from counters and file stats.</summary>
    public void SetOffline(string name) => SetState(name, "OFFLINE");

    /// <summary>ALTER DATABASE ... SET ONLINE (values carry on).</summary>
    public void SetOnline(string name) => SetState(name, "ONLINE");

    /// <summary>RESTORE DATABASE: online again with its values restarted from zero.</summary>
    public void Restore(string name)
    {
        lock (_gate)
        {
            var db = _databases.Single(d => d.Name == name);
            db.State = "ONLINE";
            db.ResetValues();
        }
    }

    /// <summary>ALTER DATABASE ... SET DELAYED_DURABILITY = <paramref name="value"/> (DISABLED, ALLOWED, FORCED).</summary>
    public void SetDelayedDurability(string name, string value)
    {
        lock (_gate)
        {
            _databases.Single(d => d.Name == name).DelayedDurability = value;
        }
    }

    /// <summary>
    /// The instance restarts: a new start time (<paramref name="newStartUtc"/>, default an hour later), every
    /// cumulative value from zero, event sessions re-created, every connection cut.
    /// </summary>
    public void Restart(DateTime? newStartUtc = null)
    {
        lock (_gate)
        {
            _startLocal = newStartUtc is { } s ? s + UtcOffset : _startLocal.AddHours(1);
            foreach (var db in _databases)
            {
                db.ResetValues();
            }

            foreach (var w in _waits.Values)
            {
                w.Reset();
            }

            foreach (var name in _xeSessions.Keys.ToList())
            {
                _xeSessions[name] = new XeSessionRow(StartTimeUtcLocked(), 0, 0);
            }
        }

        Server.DropConnections();
    }

    /// <summary>Sets an event session's drop counters (creating its row if needed).</summary>
    public void SetSessionDrops(string sessionName, long droppedEvents, long droppedBuffers)
    {
        lock (_gate)
        {
            var created = _xeSessions.TryGetValue(sessionName, out var row) ? row.CreateTime : StartTimeUtcLocked();
            _xeSessions[sessionName] = new XeSessionRow(created, droppedEvents, droppedBuffers);
        }
    }

    /// <summary>The session is dropped and created again: a new create_time, counters from zero.</summary>
    public void RecreateSession(string sessionName, DateTime createTimeUtc)
    {
        lock (_gate)
        {
            _xeSessions[sessionName] = new XeSessionRow(createTimeUtc, 0, 0);
        }
    }

    /// <summary>Statements on server DMVs (dm_os_, dm_io_, dm_xe_) fail with error 300 naming <paramref name="permission"/>; HAS_PERMS_BY_NAME answers 0 for it.</summary>
    public void DenyPermission(string permission = "VIEW SERVER STATE")
    {
        lock (_gate)
        {
            _denied.Add(permission);
        }
    }

    /// <summary>
    /// Statements containing <paramref name="textFragment"/> fail with error <paramref name="number"/> (severity 14, as a
    /// permission error) while HAS_PERMS_BY_NAME still answers as before: a permission held at the wrong scope, or an
    /// edition that wants more than the documented permission.
    /// </summary>
    public void Refuse(string textFragment, int number, string message)
    {
        lock (_gate)
        {
            _refusals.Add((textFragment, number, message));
        }
    }

    /// <summary>Lifts every <see cref="DenyPermission"/>.</summary>
    public void GrantAll()
    {
        lock (_gate)
        {
            _denied.Clear();
        }
    }

    /// <summary>Logins fail with 18456 while true.</summary>
    public bool RejectLogins
    {
        get => _rejectLogins;
        set => _rejectLogins = value;
    }

    /// <summary>Every statement (or those containing <paramref name="textFragment"/>) waits <paramref name="delay"/> before answering.</summary>
    public void Hang(TimeSpan delay, string? textFragment = null)
    {
        lock (_gate)
        {
            _hang = (delay, textFragment);
        }
    }

    /// <summary>Statements answer at once again.</summary>
    public void StopHanging()
    {
        lock (_gate)
        {
            _hang = null;
        }
    }

    /// <summary>The next <paramref name="count"/> statements (containing <paramref name="textFragment"/>) close their connection instead of answering.</summary>
    public void CutNext(int count = 1, string? textFragment = null)
    {
        lock (_gate)
        {
            _cuts = (count, textFragment);
        }
    }

    /// <summary>Requests whose text contains <paramref name="fragment"/> (a snapshot).</summary>
    public IReadOnlyList<TdsRequest> RequestsFor(string fragment) =>
        Server.Requests.Where(r => r.Text.Contains(fragment, StringComparison.OrdinalIgnoreCase)).ToList();

    /// <summary>
    /// A response that starts with the scripted hang, if one applies to <paramref name="request"/>: every rule
    /// (including other parts' rules) builds on it.
    /// </summary>
    public TdsResponse Begin(TdsRequest request)
    {
        var response = TdsResponse.Empty();
        lock (_gate)
        {
            if (_hang is { } h && (h.Fragment is null || request.Text.Contains(h.Fragment, StringComparison.OrdinalIgnoreCase)))
            {
                response.Delay(h.Delay);
            }
        }

        return response;
    }

    /// <inheritdoc />
    public ValueTask DisposeAsync() => Server.DisposeAsync();

    /// <summary>Other parts of this class add their statements' rules here (runs once, in the constructor).</summary>
    partial void AddEventSessionRules();

    /// <summary>The workload's statements (ScriptedSqlServer.Workload.cs), right after the fault rule.</summary>
    partial void AddWorkloadRules();

    private static bool TouchesServerState(string text) =>
        text.Contains("sys.dm_os_", StringComparison.OrdinalIgnoreCase) ||
        text.Contains("sys.dm_io_", StringComparison.OrdinalIgnoreCase) ||
        text.Contains("sys.dm_xe_", StringComparison.OrdinalIgnoreCase) ||
        // sys.dm_db_log_stats: VIEW SERVER STATE (its page's Permissions; on Azure SQL Database VIEW DATABASE STATE).
        text.Contains("sys.dm_db_log_stats", StringComparison.OrdinalIgnoreCase) ||
        // sys.dm_tran_session_transactions and sys.dm_tran_database_transactions: VIEW SERVER STATE (their pages' Permissions).
        text.Contains("sys.dm_tran_", StringComparison.OrdinalIgnoreCase) ||
        // The availability-group DMVs too ("Permissions" of sys.dm_hadr_database_replica_states' page).
        text.Contains("sys.dm_hadr_", StringComparison.OrdinalIgnoreCase) ||
        // Microsoft documents VIEW SERVER STATE for sys.dm_exec_connections too ("Permissions" of its page).
        text.Contains("sys.dm_exec_connections", StringComparison.OrdinalIgnoreCase);

    /// <summary>The most parameters one request may carry (Microsoft, "Maximum capacity specifications for SQL Server").</summary>
    public const int MaxParameters = 2100;

    private TdsResponse? Faults(TdsRequest request)
    {
        if (request.Parameters.Count > MaxParameters)
        {
            // What SQL Server answers, before running anything: a list expanded into a parameter per item breaks here.
            return TdsResponse.Failure(8003, $"The incoming request has too many parameters. The server supports a maximum of {MaxParameters} parameters. Reduce the number of parameters and resend the request.", state: 1, severity: 16);
        }

        lock (_gate)
        {
            if (_cuts.Count > 0 && (_cuts.Fragment is null || request.Text.Contains(_cuts.Fragment, StringComparison.OrdinalIgnoreCase)))
            {
                _cuts.Count--;
                return TdsResponse.Empty().Cut();
            }

            foreach (var (fragment, number, message) in _refusals)
            {
                if (request.Text.Contains(fragment, StringComparison.OrdinalIgnoreCase))
                {
                    return TdsResponse.Failure(number, message, state: 1, severity: 14);
                }
            }

            if (_denied.Count > 0 && TouchesServerState(request.Text))
            {
                var permission = _denied.First();
                return TdsResponse.Failure(300, $"{permission} permission was denied on object 'server', database 'master'.", state: 1, severity: 14);
            }
        }

        return null;
    }

    private void SetState(string name, string state)
    {
        lock (_gate)
        {
            _databases.Single(d => d.Name == name).State = state;
        }
    }

    private DateTime StartTimeUtcLocked() => DateTime.SpecifyKind(_startLocal - UtcOffset, DateTimeKind.Utc);

    private sealed class WaitRow(long tasksPerPoll, long msPerPoll)
    {
        public long TasksPerPoll { get; } = tasksPerPoll;

        public long MsPerPoll { get; } = msPerPoll;

        public long Tasks { get; set; }

        public long WaitMs { get; set; }

        public long MaxMs { get; set; }

        public void Reset() => Tasks = WaitMs = MaxMs = 0;
    }

    private sealed record XeSessionRow(DateTime CreateTime, long DroppedEvents, long DroppedBuffers);
}

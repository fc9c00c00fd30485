using System.Runtime.CompilerServices;
using System.Text.RegularExpressions;
using System.Threading.Channels;
using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Sessions;

/// <summary>
/// A SQL Server stand-in for the XE statements, over <see cref="TdsTestServer.TdsTestServer"/>: the XE catalog
/// (objects, columns, map values), sys.databases, event sessions that CREATE/ALTER/DROP really change, the live
/// stream (a channel per connection unless a test scripts it) and histogram target XML.
/// </summary>
public sealed partial class XeScriptedServer : IAsyncDisposable
{
    private static readonly TdsColumn[] StreamColumns = [TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data")];
    private readonly Lock _gate = new();
    private readonly Dictionary<string, (bool Defined, bool Running)> _sessions = new(StringComparer.Ordinal);
    private int _streams;
    private int _streamWaits;

    public XeScriptedServer(int port = 0)
    {
        Server = new TdsTestServer.TdsTestServer(new TdsTestServerOptions { Port = port });
        Server.Handle(Rule);
    }

    public TdsTestServer.TdsTestServer Server { get; }

    /// <summary>Rows a broken or hostile server adds to every answer about sys.databases, whatever the statement's WHERE.</summary>
    public List<(int Id, string Name)> HostileDatabases { get; } = [];

    /// <summary>Databases in sys.databases.</summary>
    public List<(int Id, string Name)> Databases { get; } = [(1, "master"), (2, "tempdb"), (3, "model"), (4, "msdb"), (5, "sales"), (6, "hr")];

    /// <summary>XE objects (package, name, type).</summary>
    public List<(string Package, string Name, string Type)> Objects { get; } =
    [
        ("sqlserver", "log_flush_start", "event"), ("sqlserver", "log_flush_complete", "event"), ("sqlos", "wait_completed", "event"),
        ("sqlos", "wait_info", "event"), ("sqlserver", "database_id", "action"), ("sqlserver", "client_app_name", "action"), ("sqlserver", "query_hash", "action"), ("package0", "event_sequence", "action"), ("package0", "histogram", "target"),
    ];

    /// <summary>Data columns (event, column, description).</summary>
    public List<(string Event, string Column, string Description)> Columns { get; } =
    [
        ("log_flush_start", "database_id", "Database ID"), ("log_flush_start", "write_size", "Bytes written"), ("log_flush_start", "log_block_id", "Block"),
        ("log_flush_complete", "database_id", "Database ID"), ("log_flush_complete", "log_block_id", "Block"), ("log_flush_complete", "duration", "Duration of the flush in milliseconds"),
        ("wait_completed", "wait_type", "Wait type"), ("wait_completed", "duration", "Duration of the wait"),
        ("wait_info", "duration", "Duration in milliseconds"),
    ];

    /// <summary>WRITELOG's map key on this server (deliberately not the 182 of one public template).</summary>
    public List<long> WriteLogKeys { get; } = [190];

    /// <summary>HADR_SYNC_COMMIT's map key(s) on this server; none unless a test sets them (the default session stays as it was).</summary>
    public List<long> HadrSyncCommitKeys { get; } = [];

    /// <summary>The map keys of LOGBUFFER and the log-rate governor's forms on this server; none unless a test sets them.</summary>
    public List<long> LogWaitKeys { get; } = [];

    /// <summary>Answers the stream query of the n-th stream request (0-based); null = a blocking channel from <see cref="StreamRows"/>.</summary>
    public Func<int, TdsResponse?>? StreamScript { get; set; }

    /// <summary>Rows of the default stream answer.</summary>
    public Channel<object?[]> StreamRows { get; } = Channel.CreateUnbounded<object?[]>();

    /// <summary>
    /// Times the default stream had sent (and flushed) every row written so far and waited for more: from then on the
    /// client's read blocks inside the server's stream, as on a quiet live session.
    /// </summary>
    public int StreamWaits => Volatile.Read(ref _streamWaits);

    /// <summary>Histogram target XML by session name.</summary>
    public Func<string, string?> HistogramXml { get; set; } = _ => null;

    /// <summary>The session state query sees no session (Azure hides sessions from a login without the view permission).</summary>
    public bool HideSessions { get; set; }

    /// <summary>Stream requests so far.</summary>
    public int StreamRequests => Volatile.Read(ref _streams);

    public string ConnectionString() => Server.ConnectionString();

    /// <summary>The statements received, in order.</summary>
    public IReadOnlyList<string> Statements => Server.Requests.Select(r => r.Text).ToList();

    /// <summary>Statements containing <paramref name="fragment"/>.</summary>
    public IReadOnlyList<string> StatementsWith(string fragment) =>
        Server.Requests.Select(r => r.Text).Where(t => t.Contains(fragment, StringComparison.OrdinalIgnoreCase)).ToList();

    /// <summary>Defines a session as a DBA (or a previous run) left it.</summary>
    public void SetSession(string name, bool defined, bool running)
    {
        lock (_gate)
        {
            _sessions[name] = (defined, running);
        }
    }

    public (bool Defined, bool Running) Session(string name)
    {
        lock (_gate)
        {
            return _sessions.GetValueOrDefault(name);
        }
    }

    public static TdsResponse Stream(IEnumerable<(int Type, byte[] Data)> rows) =>
        TdsResponse.Empty().ResultSet(StreamColumns, rows.Select(r => new object?[] { r.Type, r.Data }));

    public static TdsResponse Stream(ChannelReader<object?[]> rows) => TdsResponse.Empty().StreamingResultSet(StreamColumns, rows);

    public ValueTask DisposeAsync() => Server.DisposeAsync();

    private async IAsyncEnumerable<object?[]> DefaultStream([EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        var rows = StreamRows.Reader;
        while (true)
        {
            if (rows.TryRead(out var row))
            {
                yield return row;
                continue;
            }

            Interlocked.Increment(ref _streamWaits);
            if (!await rows.WaitToReadAsync(cancellationToken))
            {
                yield break;
            }
        }
    }

    private TdsResponse? Rule(TdsRequest r)
    {
        var t = r.Text;
        if (t.Contains("fn_MSxe_read_event_stream", StringComparison.Ordinal))
        {
            var n = Interlocked.Increment(ref _streams) - 1;
            return StreamScript?.Invoke(n) ?? TdsResponse.Empty().StreamingResultSet(StreamColumns, DefaultStream());
        }

        if (t.Contains("sys.dm_xe_objects", StringComparison.Ordinal))
        {
            return TdsResponse.Rows([TdsColumn.NVarChar("PackageName"), TdsColumn.NVarChar("ObjectName"), TdsColumn.NVarChar("ObjectType")],
                [.. Objects.Select(o => new object?[] { o.Package, o.Name, o.Type })]);
        }

        if (t.Contains("sys.dm_xe_object_columns", StringComparison.Ordinal))
        {
            return TdsResponse.Rows([TdsColumn.NVarChar("PackageName"), TdsColumn.NVarChar("ObjectName"), TdsColumn.NVarChar("ColumnName"), TdsColumn.NVarChar("TypeName"), TdsColumn.NVarChar("Description")],
                [.. Columns.Select(c => new object?[] { c.Event.StartsWith("wait", StringComparison.Ordinal) ? "sqlos" : "sqlserver", c.Event, c.Column, "uint64", c.Description })]);
        }

        if (t.Contains("sys.dm_xe_map_values", StringComparison.Ordinal))
        {
            // Each statement names its wait type: the fake answers the one asked for.
            var keys = t.Contains("N'HADR_SYNC_COMMIT'", StringComparison.Ordinal) ? HadrSyncCommitKeys
                : t.Contains("N'LOGBUFFER'", StringComparison.Ordinal) ? LogWaitKeys : WriteLogKeys;
            return TdsResponse.Rows([TdsColumn.BigInt("MapKey")], [.. keys.Select(k => new object?[] { k })]);
        }

        if (t.Contains("FROM sys.databases", StringComparison.Ordinal))
        {
            var rows = Databases.Where(d => !t.Contains("database_id = 2 OR database_id > 4", StringComparison.Ordinal) || d.Id == 2 || d.Id > 4).Concat(HostileDatabases);
            return TdsResponse.Rows([TdsColumn.Int("DatabaseId"), TdsColumn.NVarChar("Name")], [.. rows.Select(d => new object?[] { d.Id, d.Name })]);
        }

        if (t.Contains("event_sessions WHERE name = @name", StringComparison.Ordinal))
        {
            var s = HideSessions ? default : Session((string)r.Parameter("name")!);
            return TdsResponse.Rows([TdsColumn.Int("Defined"), TdsColumn.Int("Running")], [s.Defined ? 1 : 0, s.Running ? 1 : 0]);
        }

        if (t.Contains("dm_xe_session_targets", StringComparison.Ordinal))
        {
            var xml = HistogramXml((string)r.Parameter("name")!);
            return TdsResponse.Rows([TdsColumn.NVarCharMax("TargetData")], xml is null ? [] : [[xml]]);
        }

        var ddl = Ddl().Match(t);
        if (ddl.Success)
        {
            var name = ddl.Groups["name"].Value.Replace("]]", "]", StringComparison.Ordinal);
            lock (_gate)
            {
                var s = _sessions.GetValueOrDefault(name);
                switch (ddl.Groups["verb"].Value)
                {
                    case "CREATE":
                        if (s.Defined)
                        {
                            return TdsResponse.Failure(25631, $"The event session, \"{name}\", already exists.  Choose a unique name for the event session.");
                        }

                        _sessions[name] = (true, false);
                        break;
                    case "DROP":
                        _sessions.Remove(name);
                        break;
                    default:
                        var start = t.Contains("STATE = START", StringComparison.Ordinal);
                        if (start && s.Running)
                        {
                            return TdsResponse.Failure(25705, "The event session has already been started.");
                        }

                        _sessions[name] = (s.Defined, start);
                        break;
                }
            }

            return TdsResponse.Empty();
        }

        return null;
    }

    [GeneratedRegex(@"^(?<verb>CREATE|ALTER|DROP) EVENT SESSION \[(?<name>(?:[^\]]|\]\])+)\]")]
    private static partial Regex Ddl();
}

using System.Globalization;
using System.IO.Compression;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using System.Threading.Channels;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Check.Capture;
using LogFlushMonitor.SqlServer.Sql;
using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Capture;

/// <summary>
/// A server that answers from a capture (<c>check --capture</c>): each statement the product sends gets the rows the
/// capture recorded for it (found by the statement's name in the capture, so a reworded statement still finds its
/// answer), with the columns' SQL types; the polled statements answer the first poll once, then the second; a statement
/// that failed in the capture fails the same way. Event sessions are created, started and dropped as on a server, and
/// every live stream sends the captured raw rows, then stays open. What the capture does not hold fails with error 208
/// and is listed in <see cref="Unanswered"/>. A capture a user sends is thereby a fixture: drop the zip into
/// tests/testdata/captures and <c>CaptureReplayTests</c> runs the whole service against it.
/// </summary>
public sealed partial class CapturedSqlServer : IAsyncDisposable
{
    /// <summary>
    /// The product's statements by capture name: check's and the session's (Sql/, as Check/Capture/InstanceCapture.cs sends
    /// them) and every signal's, for every server a signal tells apart.
    /// </summary>
    private static readonly (string Name, string Text)[] Statements =
    [
        ("server_properties", CheckSql.ServerProperties), ("version", CheckSql.VersionDetails),
        ("xe_objects", XeSql.Objects), ("xe_event_columns", XeSql.EventColumns), ("xe_writelog_keys", XeSql.WriteLogKeys), ("xe_hadr_sync_commit_keys", XeSql.HadrSyncCommitKeys),
        ("xe_log_wait_keys", XeSql.LogWaitKeys),
        ("xe_all_databases", XeSql.AllDatabases), ("xe_user_databases", XeSql.UserDatabases),
        ("histogram_target", XeSql.ServerHistogramData), ("histogram_target", XeSql.DatabaseHistogramData),
        .. (from signal in SignalRegistry.All
            from server in new ServerProfile[] { new(false, 12), new(false, 16), new(false, 16, 8), new(true, 16, 5) }
            from statement in signal.Statements(server)
            select (statement.Name, statement.Text)).Distinct(),
    ];

    private static readonly TdsColumn[] StreamColumns = [TdsColumn.Int("type"), TdsColumn.VarBinaryMax("data")];
    private readonly Lock _gate = new();
    private readonly Dictionary<string, List<JsonNode>> _answers = new(StringComparer.Ordinal);
    private readonly Dictionary<string, int> _asked = new(StringComparer.Ordinal);
    private readonly Dictionary<string, (bool Defined, bool Running)> _sessions = new(StringComparer.Ordinal);
    private readonly List<string> _unanswered = [];
    private readonly List<ChannelWriter<object?[]>> _streams = [];
    private bool _streamOpened;
    private bool _released;

    /// <summary>Serves the first instance of the capture at <paramref name="path"/>.</summary>
    public CapturedSqlServer(string path)
    {
        using (var zip = ZipFile.OpenRead(path))
        {
            JsonNode Read(string name)
            {
                using var s = (zip.GetEntry(name) ?? throw new InvalidDataException($"{path} has no {name}: not a capture of check --capture.")).Open();
                return JsonNode.Parse(s)!;
            }

            Manifest = Read("manifest.json");
            var format = (int)Manifest["format"]!;
            if (format > CaptureArchive.FormatVersion)
            {
                throw new InvalidDataException($"{path} is capture format {format}; this replay reads up to {CaptureArchive.FormatVersion}.");
            }

            var folder = (string)Manifest["instances"]![0]!["folder"]!;
            foreach (var statement in Read(folder + "statements.json").AsArray())
            {
                var name = (string)statement!["name"]!;
                if (!_answers.TryGetValue(name, out var list))
                {
                    _answers[name] = list = [];
                }

                list.Add(statement);
            }

            StreamRows = [.. Read(folder + "stream.json")["rows"]!.AsArray().Select(r => (
                (int)r!["type"]!, r["data"] is JsonValue v ? Convert.FromBase64String((string)v!) : null))];
            if (zip.GetEntry(folder + "histogram.xml") is { } histogram)
            {
                using var reader = new StreamReader(histogram.Open());
                HistogramXml = reader.ReadToEnd();
            }
        }

        Server = new TdsTestServer.TdsTestServer(new TdsTestServerOptions());
        Server.Handle(Answer);
    }

    /// <summary>The capture's manifest.</summary>
    public JsonNode Manifest { get; }

    /// <summary>The captured live-stream rows (type, data), in order.</summary>
    public IReadOnlyList<(int Type, byte[]? Data)> StreamRows { get; }

    /// <summary>The histogram target's XML the capture read from its session, or null.</summary>
    public string? HistogramXml { get; }

    /// <summary>The TDS server underneath.</summary>
    public TdsTestServer.TdsTestServer Server { get; }

    /// <summary>Statements the capture holds no answer for (each once).</summary>
    public IReadOnlyList<string> Unanswered
    {
        get
        {
            lock (_gate)
            {
                return [.. _unanswered];
            }
        }
    }

    /// <summary>A connection string for this server.</summary>
    public string ConnectionString() => Server.ConnectionString("replay", "replay-" + Guid.NewGuid().ToString("N"));

    /// <summary>The captured statements named <paramref name="name"/> (two for a polled one: poll 1, then poll 2).</summary>
    public IReadOnlyList<JsonNode> Captured(string name) => _answers.TryGetValue(name, out var list) ? list : [];

    /// <summary>An event session's state as the replayed DDL left it.</summary>
    public (bool Defined, bool Running) EventSession(string name)
    {
        lock (_gate)
        {
            return _sessions.GetValueOrDefault(name);
        }
    }

    /// <inheritdoc />
    public ValueTask DisposeAsync() => Server.DisposeAsync();

    private TdsResponse Answer(TdsRequest request)
    {
        var text = Normalize(request.Text);
        if (text.Contains("fn_MSxe_read_event_stream", StringComparison.Ordinal))
        {
            var rows = Channel.CreateUnbounded<object?[]>();
            lock (_gate)
            {
                _streamOpened = true;
                if (_released)
                {
                    Send(rows.Writer);
                }
                else
                {
                    _streams.Add(rows.Writer);
                }
            }

            return TdsResponse.Empty().StreamingResultSet(StreamColumns, rows.Reader); // left open: the stream blocks, as a quiet server's does
        }

        if (Sessions(request, text) is { } session)
        {
            return session;
        }

        foreach (var (name, statement) in Statements)
        {
            if (Normalize(statement) != text)
            {
                continue;
            }

            if (!_answers.TryGetValue(name, out var answers))
            {
                break;
            }

            int poll;
            lock (_gate)
            {
                var asked = _asked[name] = _asked.GetValueOrDefault(name) + 1;
                poll = name is "counters" or "all_database_counters" && StreamRows.Count > 0 ? CountersPoll() : asked;
            }

            // The first poll's answer once, then the second's from there on: the counters' increase is the capture's.
            return Respond(answers[Math.Min(poll, answers.Count) - 1]);
        }

        lock (_gate)
        {
            if (!_unanswered.Contains(request.Text))
            {
                _unanswered.Add(request.Text);
            }
        }

        return TdsResponse.Failure(208, "Invalid object name: the capture holds no answer for this statement.");
    }

    private static TdsResponse Respond(JsonNode statement)
    {
        if (statement["error"] is { } error)
        {
            var number = (int)error["number"]!;
            return TdsResponse.Failure(number, (string)error["message"]!, severity: number is 229 or 297 or 300 or 916 ? (byte)14 : (byte)16);
        }

        var columns = statement["columns"]!.AsArray().Select(c => Column((string)c!["name"]!, (string)c["type"]!)).ToList();
        var rows = statement["rows"]!.AsArray().Select(r => r!.AsArray().Select((cell, i) => Cell(cell, columns[i].Type)).ToArray()).ToList();
        return TdsResponse.Rows(columns, [.. rows]);
    }

    /// <summary>The TDS column for a SQL type name as SqlClient's GetDataTypeName gave it.</summary>
    private static TdsColumn Column(string name, string type) => type.ToLowerInvariant() switch
    {
        "int" => TdsColumn.Int(name),
        "bigint" => TdsColumn.BigInt(name),
        "smallint" => new TdsColumn(name, TdsType.SmallInt),
        "tinyint" => new TdsColumn(name, TdsType.TinyInt),
        "bit" => TdsColumn.Bit(name),
        "float" => TdsColumn.Float(name),
        "real" => new TdsColumn(name, TdsType.Real),
        "datetime2" or "datetime" or "smalldatetime" or "date" => TdsColumn.DateTime2(name),
        "datetimeoffset" => new TdsColumn(name, TdsType.DateTimeOffset),
        "uniqueidentifier" => new TdsColumn(name, TdsType.UniqueIdentifier),
        "varbinary" or "binary" or "image" => TdsColumn.VarBinaryMax(name),
        "decimal" or "numeric" => TdsColumn.Decimal(name),
        // nvarchar, nchar, varchar, char, sysname, xml, ntext: text. nvarchar(max) so no captured value is cut.
        _ => TdsColumn.NVarCharMax(name),
    };

    private static object? Cell(JsonNode? cell, TdsType type) => cell is null ? null : type switch
    {
        TdsType.Int or TdsType.SmallInt or TdsType.TinyInt or TdsType.BigInt => (long)cell,
        TdsType.Bit => (bool)cell,
        TdsType.Float or TdsType.Real or TdsType.Decimal => (double)cell,
        TdsType.DateTime2 => DateTime.Parse((string)cell!, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind),
        TdsType.DateTimeOffset => DateTimeOffset.Parse((string)cell!, CultureInfo.InvariantCulture),
        TdsType.UniqueIdentifier => Guid.Parse((string)cell!),
        TdsType.VarBinaryMax => Convert.FromBase64String((string)cell!),
        _ => (string?)cell,
    };

    /// <summary>
    /// Which poll of the counters to answer when the capture holds stream rows, so that its events and its one counter
    /// increase fall in one window of the agreement, whatever the timing of the service's two loops: the first poll's
    /// values until the live stream is open; then once more (the service takes that answer as its baseline, its stream
    /// being up), after which the captured rows are sent (300 ms later: after the baseline, well before the next poll);
    /// then the second poll's values from there on. Under the lock.
    /// </summary>
    private int CountersPoll()
    {
        if (!_streamOpened)
        {
            return 1;
        }

        if (!_released)
        {
            _released = true;
            _ = Task.Delay(TimeSpan.FromMilliseconds(300)).ContinueWith(_ =>
            {
                lock (_gate)
                {
                    foreach (var stream in _streams)
                    {
                        Send(stream);
                    }

                    _streams.Clear();
                }
            }, TaskScheduler.Default);
            return 1;
        }

        return 2;
    }

    /// <summary>Writes every captured row to a stream (which stays open).</summary>
    private void Send(ChannelWriter<object?[]> stream)
    {
        foreach (var (type, data) in StreamRows)
        {
            stream.TryWrite([type, data]);
        }
    }

    /// <summary>Session state and DDL: kept as a server would, so the service creates, starts and stops its session.</summary>
    private TdsResponse? Sessions(TdsRequest request, string text)
    {
        if (text.Contains("event_sessions WHERE name = @name", StringComparison.Ordinal))
        {
            var s = EventSession((string)request.Parameter("name")!);
            return TdsResponse.Rows([TdsColumn.Int("Defined"), TdsColumn.Int("Running")], [s.Defined ? 1 : 0, s.Running ? 1 : 0]);
        }

        var ddl = Ddl().Match(text);
        if (!ddl.Success)
        {
            return null;
        }

        var name = ddl.Groups["name"].Value.Replace("]]", "]", StringComparison.Ordinal);
        lock (_gate)
        {
            var s = _sessions.GetValueOrDefault(name);
            _sessions[name] = ddl.Groups["verb"].Value switch
            {
                "CREATE" => (true, false),
                "DROP" => (false, false),
                _ => (s.Defined, text.Contains("STATE = START", StringComparison.Ordinal)),
            };
        }

        return TdsResponse.Empty();
    }

    /// <summary>A statement as text to compare: line ends unified, Dapper's list expansion "(@x1,@x2)" folded back to "@x".</summary>
    private static string Normalize(string text) => ListExpansion().Replace(text.ReplaceLineEndings("\n").Trim(), "@$1");

    [GeneratedRegex(@"\(@(\w+?)1(?:\s*,\s*@\1\d+)*\)")]
    private static partial Regex ListExpansion();

    [GeneratedRegex(@"^(?<verb>CREATE|ALTER|DROP) EVENT SESSION \[(?<name>(?:[^\]]|\]\])+)\]")]
    private static partial Regex Ddl();
}

using System.Text.Json;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Simulation.Ndjson;

/// <summary>
/// Parses one NDJSON line into its fields (held here, so nothing large is copied), then delivers the sample.
/// Strings that repeat (instance, database, wait type, counter names) are interned per parser: one instance
/// name is one string object for the whole replay, and a known string costs no allocation.
/// </summary>
/// <remarks>Not thread-safe: one replay owns one parser.</remarks>
internal sealed class NdjsonLineParser
{
    // Beyond this many distinct strings (hostile input) new ones are no longer interned.
    private const int MaxInterned = 100_000;

    private readonly Dictionary<string, string> _interned = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string>.AlternateLookup<ReadOnlySpan<char>> _lookup;
    private char[] _chars = new char[256];

    private RecordType _type;
    private Field _present;
    private DateTime _t;
    private DateTime _startTime;
    private string? _instance;
    private string? _db;
    private string? _waitType;
    private string? _object;
    private string? _counter;
    private string? _counterInstance;
    private string? _kind;
    private int _dbId;
    private int _cntrType;
    private int _fileId;
    private uint _writeSize;
    private ulong _block;
    private long _seq;
    private long _durationTicks;
    private long _value;
    private long _base;
    private long _a;
    private long _b;
    private long _c;
    private long _d;
    private long _count;

    public NdjsonLineParser() => _lookup = _interned.GetAlternateLookup<ReadOnlySpan<char>>();

    private enum RecordType : byte
    {
        None,
        Flush,
        FlushComplete,
        Wait,
        Counter,
        WaitStats,
        FileStats,
        ServerStart,
        PollCompleted,
        Loss,
        DatabaseName,
        FlushBucket,
    }

    [Flags]
    private enum Field
    {
        None = 0,
        T = 1 << 0,
        Instance = 1 << 1,
        DbId = 1 << 2,
        Db = 1 << 3,
        WriteSize = 1 << 4,
        Duration = 1 << 5,
        WaitType = 1 << 6,
        Object = 1 << 7,
        Counter = 1 << 8,
        CounterInstance = 1 << 9,
        Value = 1 << 10,
        CntrType = 1 << 11,
        WaitingTasks = 1 << 12,
        WaitTime = 1 << 13,
        FileId = 1 << 14,
        Writes = 1 << 15,
        Bytes = 1 << 16,
        Stall = 1 << 17,
        StartTime = 1 << 18,
        Kind = 1 << 19,
        Count = 1 << 20,
    }

    /// <summary>The instance of the last line parsed, when it had a valid one.</summary>
    public string? Instance => _instance;

    /// <summary>The time of the last line parsed (before any shift), when it had one.</summary>
    public DateTime? Time => (_present & Field.T) != 0 ? _t : null;

    /// <summary>Parses <paramref name="line"/>; returns null when it holds a valid sample, otherwise what is wrong.</summary>
    public string? Parse(ReadOnlySpan<byte> line)
    {
        _type = RecordType.None;
        _present = Field.None;
        _instance = _db = _waitType = _object = _counter = _counterInstance = _kind = null;
        _block = 0;
        _seq = 0;
        _base = 0;
        _c = _d = 0;
        _writeSize = 0;
        try
        {
            var reader = new Utf8JsonReader(line, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Disallow });
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return "expected a JSON object";
            }

            string? unknownType = null;
            string? firstError = null;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var error = ReadProperty(ref reader, ref unknownType);
                if (error is not null)
                {
                    // Read on: a later field may still name the instance the loss is counted against.
                    firstError ??= error;
                    reader.Skip();
                }
            }

            if (reader.TokenType != JsonTokenType.EndObject || reader.Read())
            {
                return "invalid JSON: text after the object";
            }

            if (firstError is not null)
            {
                return firstError;
            }

            if (unknownType is not null)
            {
                return $"unknown type '{unknownType}'";
            }

            return _type == RecordType.None ? "missing field 'type'" : Validate();
        }
        catch (JsonException e)
        {
            return "invalid JSON: " + e.Message;
        }
    }

    /// <summary>Delivers the parsed sample, its times shifted by <paramref name="shiftTicks"/>.</summary>
    public void Deliver(ISampleSink sink, long shiftTicks)
    {
        var t = (_present & Field.T) != 0 ? _t.AddTicks(shiftTicks) : default;
        var instance = _instance!;
        switch (_type)
        {
            case RecordType.Flush:
            case RecordType.FlushComplete:
                TimeSpan? duration = _type == RecordType.FlushComplete ? TimeSpan.FromTicks(_durationTicks) : null;
                sink.OnLogFlush(new LogFlushEvent(instance, _dbId, _db, _writeSize, _block, t, duration, _seq));
                break;
            case RecordType.Wait:
                sink.OnWait(new WaitEvent(instance, _waitType!, TimeSpan.FromTicks(_durationTicks), _dbId, _db, t, _seq));
                break;
            case RecordType.Counter:
                sink.OnCounter(new CounterSample(instance, t, _object!, _counter!, _counterInstance!, _value, _cntrType, _base));
                break;
            case RecordType.WaitStats:
                sink.OnWaitStats(new WaitStatsSample(instance, t, _waitType!, _a, _b, _c, _d));
                break;
            case RecordType.FileStats:
                sink.OnFileStats(new FileStatsSample(instance, t, _dbId, _db!, _fileId, _a, _b, _c));
                break;
            case RecordType.ServerStart:
                sink.OnServerStart(new ServerStartSample(instance, t, _startTime.AddTicks(shiftTicks)));
                break;
            case RecordType.PollCompleted:
                sink.OnPollCompleted(new PollCompleted(instance, t, PollKindOf(_kind!)!.Value));
                break;
            case RecordType.Loss:
                sink.OnSourceLoss(instance, LossKindOf(_kind!)!.Value, _count);
                break;
            case RecordType.DatabaseName:
                sink.OnDatabaseName(new DatabaseNameSample(instance, t, _dbId, _db!));
                break;
            case RecordType.FlushBucket:
                sink.OnFlushBucket(new FlushBucketSample(instance, t, _dbId, _db, _writeSize, _count));
                break;
        }
    }

    private string? ReadProperty(ref Utf8JsonReader reader, ref string? unknownType)
    {
        if (reader.ValueTextEquals("type"u8))
        {
            reader.Read();
            if (reader.TokenType != JsonTokenType.String)
            {
                return "invalid field 'type': expected a string";
            }

            _type = TypeOf(ref reader);
            if (_type == RecordType.None)
            {
                unknownType = reader.GetString();
            }

            return null;
        }

        if (reader.ValueTextEquals("t"u8))
        {
            return ReadTime(ref reader, "t", Field.T, ref _t);
        }

        if (reader.ValueTextEquals("instance"u8))
        {
            return ReadString(ref reader, "instance", Field.Instance, ref _instance);
        }

        if (reader.ValueTextEquals("db_id"u8))
        {
            return ReadInt(ref reader, "db_id", Field.DbId, ref _dbId);
        }

        if (reader.ValueTextEquals("db"u8))
        {
            return ReadString(ref reader, "db", Field.Db, ref _db, nullable: true);
        }

        if (reader.ValueTextEquals("write_size"u8))
        {
            reader.Read();
            return reader.TokenType == JsonTokenType.Number && reader.TryGetUInt32(out _writeSize)
                ? Mark(Field.WriteSize)
                : "invalid field 'write_size': expected an unsigned 32-bit integer";
        }

        if (reader.ValueTextEquals("block"u8))
        {
            reader.Read();
            return reader.TokenType == JsonTokenType.Number && reader.TryGetUInt64(out _block)
                ? null
                : "invalid field 'block': expected an unsigned 64-bit integer";
        }

        if (reader.ValueTextEquals("duration_us"u8))
        {
            reader.Read();
            if (reader.TokenType != JsonTokenType.Number || !reader.TryGetDouble(out var us) || !(us >= 0) || us > TimeSpan.MaxValue.TotalMicroseconds)
            {
                return "invalid field 'duration_us': expected a non-negative number";
            }

            _durationTicks = (long)Math.Round(us * 10);
            return Mark(Field.Duration);
        }

        return ReadOtherProperty(ref reader);
    }

    private string? ReadOtherProperty(ref Utf8JsonReader reader)
    {
        if (reader.ValueTextEquals("seq"u8))
        {
            return ReadLong(ref reader, "seq", Field.None, ref _seq);
        }

        if (reader.ValueTextEquals("wait_type"u8))
        {
            return ReadString(ref reader, "wait_type", Field.WaitType, ref _waitType);
        }

        if (reader.ValueTextEquals("object"u8))
        {
            return ReadString(ref reader, "object", Field.Object, ref _object);
        }

        if (reader.ValueTextEquals("counter"u8))
        {
            return ReadString(ref reader, "counter", Field.Counter, ref _counter);
        }

        if (reader.ValueTextEquals("counter_instance"u8))
        {
            return ReadString(ref reader, "counter_instance", Field.CounterInstance, ref _counterInstance);
        }

        if (reader.ValueTextEquals("value"u8))
        {
            return ReadLong(ref reader, "value", Field.Value, ref _value);
        }

        if (reader.ValueTextEquals("cntr_type"u8))
        {
            return ReadInt(ref reader, "cntr_type", Field.CntrType, ref _cntrType);
        }

        if (reader.ValueTextEquals("base"u8))
        {
            return ReadLong(ref reader, "base", Field.None, ref _base);
        }

        if (reader.ValueTextEquals("waiting_tasks"u8))
        {
            return ReadLong(ref reader, "waiting_tasks", Field.WaitingTasks, ref _a);
        }

        if (reader.ValueTextEquals("wait_time_ms"u8))
        {
            return ReadLong(ref reader, "wait_time_ms", Field.WaitTime, ref _b);
        }

        if (reader.ValueTextEquals("max_wait_time_ms"u8))
        {
            return ReadLong(ref reader, "max_wait_time_ms", Field.None, ref _c);
        }

        if (reader.ValueTextEquals("signal_wait_time_ms"u8))
        {
            return ReadLong(ref reader, "signal_wait_time_ms", Field.None, ref _d);
        }

        if (reader.ValueTextEquals("file_id"u8))
        {
            return ReadInt(ref reader, "file_id", Field.FileId, ref _fileId);
        }

        if (reader.ValueTextEquals("num_of_writes"u8))
        {
            return ReadLong(ref reader, "num_of_writes", Field.Writes, ref _a);
        }

        if (reader.ValueTextEquals("num_of_bytes_written"u8))
        {
            return ReadLong(ref reader, "num_of_bytes_written", Field.Bytes, ref _b);
        }

        if (reader.ValueTextEquals("io_stall_write_ms"u8))
        {
            return ReadLong(ref reader, "io_stall_write_ms", Field.Stall, ref _c);
        }

        if (reader.ValueTextEquals("start_time"u8))
        {
            return ReadTime(ref reader, "start_time", Field.StartTime, ref _startTime);
        }

        if (reader.ValueTextEquals("kind"u8))
        {
            return ReadString(ref reader, "kind", Field.Kind, ref _kind);
        }

        if (reader.ValueTextEquals("count"u8))
        {
            return ReadLong(ref reader, "count", Field.Count, ref _count);
        }

        // Unknown properties are skipped: later versions may add fields.
        reader.Read();
        reader.Skip();
        return null;
    }

    private string? Validate()
    {
        var (required, names) = _type switch
        {
            RecordType.Flush => (Field.T | Field.Instance | Field.DbId | Field.WriteSize, "t, instance, db_id, write_size"),
            RecordType.FlushComplete => (Field.T | Field.Instance | Field.DbId | Field.Duration, "t, instance, db_id, duration_us"),
            RecordType.Wait => (Field.T | Field.Instance | Field.DbId | Field.WaitType | Field.Duration, "t, instance, db_id, wait_type, duration_us"),
            RecordType.Counter => (Field.T | Field.Instance | Field.Object | Field.Counter | Field.CounterInstance | Field.Value | Field.CntrType, "t, instance, object, counter, counter_instance, value, cntr_type"),
            RecordType.WaitStats => (Field.T | Field.Instance | Field.WaitType | Field.WaitingTasks | Field.WaitTime, "t, instance, wait_type, waiting_tasks, wait_time_ms"),
            RecordType.FileStats => (Field.T | Field.Instance | Field.DbId | Field.Db | Field.FileId | Field.Writes | Field.Bytes | Field.Stall, "t, instance, db_id, db, file_id, num_of_writes, num_of_bytes_written, io_stall_write_ms"),
            RecordType.ServerStart => (Field.T | Field.Instance | Field.StartTime, "t, instance, start_time"),
            RecordType.PollCompleted => (Field.T | Field.Instance | Field.Kind, "t, instance, kind"),
            RecordType.DatabaseName => (Field.T | Field.Instance | Field.DbId | Field.Db, "t, instance, db_id, db"),
            RecordType.FlushBucket => (Field.T | Field.Instance | Field.DbId | Field.WriteSize | Field.Count, "t, instance, db_id, write_size, count"),
            _ => (Field.Instance | Field.Kind | Field.Count, "instance, kind, count"),
        };

        var missing = required & ~_present;
        if (missing != Field.None)
        {
            return $"missing field(s) for type {TypeName()}: {Missing(missing)} (required: {names})";
        }

        if (_type is RecordType.FileStats or RecordType.DatabaseName && _db is null)
        {
            return "invalid field 'db': expected a string";
        }

        if (_type == RecordType.FlushBucket && _count <= 0)
        {
            return "invalid field 'count': expected a positive integer";
        }

        if (_type == RecordType.PollCompleted && PollKindOf(_kind!) is null)
        {
            return $"invalid field 'kind': '{_kind}' is not counters, wait_stats or file_stats";
        }

        if (_type == RecordType.Loss && LossKindOf(_kind!) is null)
        {
            return $"invalid field 'kind': '{_kind}' is not sequence_gap, channel_full, server_dropped or malformed";
        }

        return null;
    }

    private string TypeName() => _type switch
    {
        RecordType.Flush => "flush",
        RecordType.FlushComplete => "flush_complete",
        RecordType.Wait => "wait",
        RecordType.Counter => "counter",
        RecordType.WaitStats => "wait_stats",
        RecordType.FileStats => "file_stats",
        RecordType.ServerStart => "server_start",
        RecordType.PollCompleted => "poll_completed",
        RecordType.DatabaseName => "database",
        RecordType.FlushBucket => "flush_bucket",
        _ => "loss",
    };

    private static string Missing(Field missing)
    {
        var names = new List<string>();
        foreach (var f in Enum.GetValues<Field>())
        {
            if (f != Field.None && (missing & f) != 0)
            {
                names.Add(f switch
                {
                    Field.DbId => "db_id",
                    Field.WriteSize => "write_size",
                    Field.Duration => "duration_us",
                    Field.WaitType => "wait_type",
                    Field.CounterInstance => "counter_instance",
                    Field.CntrType => "cntr_type",
                    Field.WaitingTasks => "waiting_tasks",
                    Field.WaitTime => "wait_time_ms",
                    Field.FileId => "file_id",
                    Field.Writes => "num_of_writes",
                    Field.Bytes => "num_of_bytes_written",
                    Field.Stall => "io_stall_write_ms",
                    Field.StartTime => "start_time",
                    _ => f.ToString().ToLowerInvariant(),
                });
            }
        }

        return string.Join(", ", names);
    }

    private static RecordType TypeOf(ref Utf8JsonReader reader) =>
        reader.ValueTextEquals("flush"u8) ? RecordType.Flush
        : reader.ValueTextEquals("wait"u8) ? RecordType.Wait
        : reader.ValueTextEquals("flush_complete"u8) ? RecordType.FlushComplete
        : reader.ValueTextEquals("counter"u8) ? RecordType.Counter
        : reader.ValueTextEquals("wait_stats"u8) ? RecordType.WaitStats
        : reader.ValueTextEquals("file_stats"u8) ? RecordType.FileStats
        : reader.ValueTextEquals("server_start"u8) ? RecordType.ServerStart
        : reader.ValueTextEquals("poll_completed"u8) ? RecordType.PollCompleted
        : reader.ValueTextEquals("loss"u8) ? RecordType.Loss
        : reader.ValueTextEquals("database"u8) ? RecordType.DatabaseName
        : reader.ValueTextEquals("flush_bucket"u8) ? RecordType.FlushBucket
        : RecordType.None;

    private static PollKind? PollKindOf(string kind) => kind switch
    {
        "counters" => PollKind.Counters,
        "wait_stats" => PollKind.WaitStats,
        "file_stats" => PollKind.FileStats,
        _ => null,
    };

    private static LossKind? LossKindOf(string kind) => kind switch
    {
        "sequence_gap" => LossKind.SequenceGap,
        "channel_full" => LossKind.ChannelFull,
        "server_dropped" => LossKind.ServerDropped,
        "malformed" => LossKind.Malformed,
        _ => null,
    };

    private string? Mark(Field field)
    {
        _present |= field;
        return null;
    }

    private string? ReadInt(ref Utf8JsonReader reader, string name, Field field, ref int target)
    {
        reader.Read();
        return reader.TokenType == JsonTokenType.Number && reader.TryGetInt32(out target)
            ? Mark(field)
            : $"invalid field '{name}': expected a 32-bit integer";
    }

    private string? ReadLong(ref Utf8JsonReader reader, string name, Field field, ref long target)
    {
        reader.Read();
        return reader.TokenType == JsonTokenType.Number && reader.TryGetInt64(out target)
            ? Mark(field)
            : $"invalid field '{name}': expected a 64-bit integer";
    }

    private string? ReadTime(ref Utf8JsonReader reader, string name, Field field, ref DateTime target)
    {
        reader.Read();
        if (reader.TokenType != JsonTokenType.String || !reader.TryGetDateTime(out var value))
        {
            return $"invalid field '{name}': expected an ISO-8601 time";
        }

        // A Z or offset gives UTC (converted through local time by the reader); no offset is taken as UTC.
        target = value.Kind switch
        {
            DateTimeKind.Local => value.ToUniversalTime(),
            _ => DateTime.SpecifyKind(value, DateTimeKind.Utc),
        };
        return Mark(field);
    }

    private string? ReadString(ref Utf8JsonReader reader, string name, Field field, ref string? target, bool nullable = false)
    {
        reader.Read();
        if (nullable && reader.TokenType == JsonTokenType.Null)
        {
            target = null;
            return null;
        }

        if (reader.TokenType != JsonTokenType.String)
        {
            return $"invalid field '{name}': expected a string";
        }

        target = Intern(ref reader);
        return Mark(field);
    }

    private string Intern(ref Utf8JsonReader reader)
    {
        // UTF-8 never takes fewer bytes than UTF-16 code units, so the raw length bounds the decoded one.
        var max = reader.HasValueSequence ? (int)reader.ValueSequence.Length : reader.ValueSpan.Length;
        if (_chars.Length < max)
        {
            _chars = new char[Math.Max(max, _chars.Length * 2)];
        }

        var chars = _chars.AsSpan(0, reader.CopyString(_chars));
        if (_lookup.TryGetValue(chars, out var known))
        {
            return known;
        }

        var s = new string(chars);
        if (_interned.Count < MaxInterned)
        {
            _interned[s] = s;
        }

        return s;
    }
}

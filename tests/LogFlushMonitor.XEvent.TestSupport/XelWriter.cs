using System.Buffers.Binary;
using System.Text;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.TestSupport;

/// <summary>
/// Test-only writer of .xel files and live-stream rows, following docs/xel-format.md. It declares
/// sqlserver.log_flush_start / log_flush_complete, sqlos.wait_completed / wait_info and the actions
/// sqlserver.database_id, sqlserver.database_name, sqlserver.client_app_name (wait events' clientApp, UTF-16 as a server
/// writes it), sqlserver.query_hash (uint64) and sqlserver.query_hash_signed (int64) (wait events' queryHash),
/// package0.event_sequence. Its output proves the
/// aggregation paths only; the real files in tests/testdata prove the format.
/// </summary>
public sealed class XelWriter : IDisposable
{
    /// <summary>The key of WRITELOG in <see cref="DefaultWaitTypes"/> (one public template uses 182).</summary>
    public const uint WriteLogKey = 182;

    /// <summary>A small wait_types map.</summary>
    public static readonly IReadOnlyDictionary<uint, string> DefaultWaitTypes = new Dictionary<uint, string>
    {
        [0] = "UNKNOWN",
        [1] = "LCK_M_SCH_S",
        [66] = "PAGEIOLATCH_SH",
        [67] = "PAGEIOLATCH_EX",
        [WriteLogKey] = "WRITELOG",
        [190] = "SOS_SCHEDULER_YIELD",
    };

    /// <summary>A duration description naming milliseconds.</summary>
    public const string MillisecondsDescription = "Duration in milliseconds";

    /// <summary>A duration description naming microseconds.</summary>
    public const string MicrosecondsDescription = "Duration in microseconds";

    /// <summary>A duration description that names no unit.</summary>
    public const string NoUnitDescription = "The duration of the operation";

    /// <summary>The type of the header row the live stream starts with (and, in file mode, each file).</summary>
    public const int HeaderRowType = 2;

    private const int MetadataDataOffset = 76;
    private const int EventDataOffset = 77;

    private readonly Stream? _stream;
    private readonly Action<int, byte[]>? _rowSink;
    private readonly XelWriterOptions _options;
    private readonly long _startFileTime;
    private readonly Guid _signature = Guid.NewGuid();
    private readonly List<PackageSpec> _packages = [];
    private readonly EventLayout _flushStart;
    private readonly EventLayout _flushComplete;
    private readonly EventLayout _waitCompleted;
    private readonly EventLayout _waitInfo;
    private readonly EventLayout _probe;
    private readonly uint _actionDatabaseId = Rid.Action(2, 0);
    private readonly uint _actionDatabaseName = Rid.Action(2, 29);
    private readonly uint _actionSequence = Rid.Action(0, 9);
    private readonly uint _actionClientApp = Rid.Action(2, 30);
    private readonly uint _actionQueryHash = Rid.Action(2, 31);
    private readonly uint _actionQueryHashSigned = Rid.Action(2, 32);
    private string? _clientApp;
    private ulong? _queryHash;
    private bool _queryHashSigned;
    private readonly ByteSink _buffer;
    private readonly ByteSink _payload = new(256);
    private readonly ByteSink _variable = new(256);
    private readonly ByteSink _actions = new(128);
    private readonly Random _garbage = new(7);
    private uint _sequence;
    private int _buffersSinceMetadata;
    private bool _disposed;

    /// <summary>Writes a .xel file to a stream: file header, metadata, then event buffers.</summary>
    public XelWriter(Stream stream, DateTime startTimeUtc, XelWriterOptions? options = null)
        : this(startTimeUtc, options)
    {
        _stream = stream;
        Emit(2, FileHeader());
        WriteMetadata();
    }

    private XelWriter(Action<int, byte[]> rowSink, DateTime startTimeUtc, XelWriterOptions? options)
        : this(startTimeUtc, options)
    {
        _rowSink = rowSink;
        // Nothing public shows that a type-2 row starts with the .xel file magic: this one does not.
        Emit(HeaderRowType, StreamHeaderRow());
        WriteMetadata();
    }

    private XelWriter(DateTime startTimeUtc, XelWriterOptions? options)
    {
        _options = options ?? new XelWriterOptions();
        if (_options.BufferSize < 1024 || _options.BufferSize % 512 != 0)
        {
            throw new ArgumentException("BufferSize must be a multiple of 512, at least 1024", nameof(options));
        }

        _startFileTime = startTimeUtc.ToUniversalTime().ToFileTimeUtc();
        _buffer = new ByteSink(_options.BufferSize);
        var dbType = Rid.Type(_options.DatabaseIdType == XEventBaseType.UInt16 ? 6 : 7);
        var dbSize = _options.DatabaseIdType == XEventBaseType.UInt16 ? 2 : 4;
        uint U32 = Rid.Type(7), U64 = Rid.Type(8), Ptr = Rid.Type(13);

        var package0 = new PackageSpec("package0", 0, new Guid("60aa9fbf-673b-4553-b7ed-71dca7f5e972"), [], [], [], []);
        package0.Actions.Add(new ActionSpec("event_sequence", 9, U64, 8));
        foreach (var (name, id, size) in new[]
        {
            ("int8", 1, 1), ("int16", 2, 2), ("int32", 3, 4), ("int64", 4, 8), ("uint8", 5, 1), ("uint16", 6, 2),
            ("uint32", 7, 4), ("uint64", 8, 8), ("float32", 9, 4), ("float64", 10, 8), ("ptr", 13, 8),
            ("ansi_string", 19, 0), ("unicode_string", 20, 0), ("guid", 21, 0), ("binary_data", 22, 0),
            ("activity_id", 24, 20), ("boolean", 26, 1), ("xml", 27, 0), ("future_fixed", 99, 4), ("future_variable", 98, 0),
        })
        {
            package0.Types.Add(new TypeSpec(name, id, (byte)size));
        }

        package0.Maps.Add(new MapSpec("probe_colors", 40, false, 2, [new(1, "red"), new(2, "green"), new(3, "blue")]));
        package0.Maps.Add(new MapSpec("probe_flags", 41, true, 4, [new(1, "read"), new(2, "write"), new(4, "execute")]));
        var probe = new EventSpec("xel_writer_types", 200,
        [
            new("int8", Rid.Type(1), 1), new("int16", Rid.Type(2), 2), new("int32", Rid.Type(3), 4), new("int64", Rid.Type(4), 8),
            new("uint8", Rid.Type(5), 1), new("uint16", Rid.Type(6), 2), new("uint32", U32, 4), new("uint64", U64, 8),
            new("float32", Rid.Type(9), 4), new("float64", Rid.Type(10), 8), new("boolean", Rid.Type(26), 1), new("pointer", Ptr, 8),
            new("activity", Rid.Type(24), 20), new("color", Rid.Map(0, 40), 2), new("flags", Rid.Map(0, 41), 4),
            new("unknown_fixed", Rid.Type(99), 4), new("after_unknown", U32, 4),
            new("text", Rid.Type(20), 0), new("ansi", Rid.Type(19), 0), new("guid", Rid.Type(21), 0), new("binary", Rid.Type(22), 0),
            new("xml", Rid.Type(27), 0), new("unknown_variable", Rid.Type(98), 0),
        ]);
        package0.Events.Add(probe);

        var waitTypes = _options.WaitTypes ?? DefaultWaitTypes;
        var sqlos = new PackageSpec("sqlos", 1, new Guid("bd97cc63-3f38-4922-aa93-607bd12e78b2"), [], [], [], []);
        sqlos.Maps.Add(new MapSpec("wait_types", 5, false, 4, [.. waitTypes]));
        sqlos.Maps.Add(new MapSpec("event_opcode", 6, false, 1, [new(0, "Begin"), new(1, "End")]));
        var waitCompleted = new EventSpec("wait_completed", 101,
        [
            new("wait_type", Rid.Map(1, 5), 4), new("duration", U64, 8, _options.WaitDurationDescription), new("signal_duration", U64, 8), new("wait_resource", Ptr, 8),
        ]);
        var waitInfo = new EventSpec("wait_info", 100,
        [
            new("wait_type", Rid.Map(1, 5), 4), new("opcode", Rid.Map(1, 6), 1), new("duration", U64, 8, _options.WaitDurationDescription),
            new("signal_duration", U64, 8), new("wait_resource", Ptr, 8),
        ]);
        sqlos.Events.Add(waitInfo);
        sqlos.Events.Add(waitCompleted);

        var sqlserver = new PackageSpec("sqlserver", 2, new Guid("655fd93f-3364-40d5-b2ba-330f7ffb6491"), [], [], [], []);
        var flushStart = new EventSpec("log_flush_start", 150,
        [
            new("database_id", dbType, dbSize), new("log_block_id", U64, 8), new("write_size", U32, 4),
            new("rows", U32, 4), new("pending_writes", U32, 4),
        ]);
        var flushComplete = new EventSpec("log_flush_complete", 151,
        [
            new("database_id", dbType, dbSize), new("log_block_id", U64, 8), new("duration", U64, 8, _options.FlushDurationDescription), new("pending_writes", U32, 4),
        ]);
        sqlserver.Events.Add(flushStart);
        sqlserver.Actions.Add(new ActionSpec("database_id", 0, Rid.Type(6), 0));
        sqlserver.Actions.Add(new ActionSpec("database_name", 29, Rid.Type(20), 0));
        sqlserver.Actions.Add(new ActionSpec("client_app_name", 30, Rid.Type(20), 0));
        sqlserver.Actions.Add(new ActionSpec("query_hash", 31, U64, 8));
        sqlserver.Actions.Add(new ActionSpec("query_hash_signed", 32, Rid.Type(4), 8));
        var completePackage = sqlserver;
        if (_options.RepeatSqlServerPackage)
        {
            completePackage = new PackageSpec("sqlserver", 3, sqlserver.Id, [], [], [], []);
        }

        completePackage.Events.Add(flushComplete);
        _packages.AddRange(completePackage == sqlserver ? [package0, sqlos, sqlserver] : [package0, sqlos, sqlserver, completePackage]);

        _flushStart = new EventLayout(sqlserver, flushStart);
        _flushComplete = new EventLayout(completePackage, flushComplete);
        _waitCompleted = new EventLayout(sqlos, waitCompleted);
        _waitInfo = new EventLayout(sqlos, waitInfo);
        _probe = new EventLayout(package0, probe);
    }

    /// <summary>Event buffers written so far.</summary>
    public int EventBuffers => (int)_sequence;

    /// <summary>Events written so far.</summary>
    public long EventCount { get; private set; }

    /// <summary>
    /// Runs <paramref name="write"/> against a writer whose output is live-stream rows: a header row
    /// (type 2, which does not start with the file magic), metadata rows (type 1) and event rows (type 0).
    /// </summary>
    public static IEnumerable<(int Type, byte[] Data)> WriteLiveStreamBuffers(DateTime startTimeUtc, Action<XelWriter> write, XelWriterOptions? options = null)
    {
        var rows = new List<(int, byte[])>();
        using (var w = new XelWriter((t, d) => rows.Add((t, d)), startTimeUtc, options))
        {
            write(w);
        }

        return rows;
    }

    /// <summary>Writes sqlserver.log_flush_start.</summary>
    public void LogFlushStart(DateTime timestampUtc, uint databaseId, string? databaseName, uint writeSize, ulong logBlockId,
        ulong? sequence = null, uint rows = 1, uint pendingWrites = 0)
    {
        Begin(_flushStart);
        SetUInt(_flushStart, 0, databaseId);
        SetUInt(_flushStart, 1, logBlockId);
        SetUInt(_flushStart, 2, writeSize);
        SetUInt(_flushStart, 3, rows);
        SetUInt(_flushStart, 4, pendingWrites);
        Finish(_flushStart, timestampUtc, databaseId, databaseName, sequence);
    }

    /// <summary>Writes sqlserver.log_flush_complete (duration in the server's unit: milliseconds).</summary>
    public void LogFlushComplete(DateTime timestampUtc, uint databaseId, string? databaseName, ulong logBlockId, ulong duration,
        ulong? sequence = null, uint pendingWrites = 0)
    {
        Begin(_flushComplete);
        SetUInt(_flushComplete, 0, databaseId);
        SetUInt(_flushComplete, 1, logBlockId);
        SetUInt(_flushComplete, 2, duration);
        SetUInt(_flushComplete, 3, pendingWrites);
        Finish(_flushComplete, timestampUtc, databaseId, databaseName, sequence);
    }

    /// <summary>Writes sqlos.wait_completed; the database action is added when <paramref name="databaseId"/> is set.</summary>
    public void WaitCompleted(DateTime timestampUtc, uint waitTypeKey, ulong duration, uint? databaseId,
        ulong? sequence = null, ulong signalDuration = 0, string? databaseName = null, ulong waitResource = 0, string? clientApp = null,
        ulong? queryHash = null, bool queryHashSigned = false)
    {
        _clientApp = clientApp;
        _queryHash = queryHash;
        _queryHashSigned = queryHashSigned;
        Begin(_waitCompleted);
        SetUInt(_waitCompleted, 0, waitTypeKey);
        SetUInt(_waitCompleted, 1, duration);
        SetUInt(_waitCompleted, 2, signalDuration);
        SetUInt(_waitCompleted, 3, waitResource);
        Finish(_waitCompleted, timestampUtc, databaseId, databaseName, sequence);
    }

    /// <summary>Writes sqlos.wait_info (opcode 0 begin, 1 end).</summary>
    public void WaitInfo(DateTime timestampUtc, uint waitTypeKey, byte opcode, ulong duration, uint? databaseId,
        ulong? sequence = null, ulong signalDuration = 0, string? databaseName = null, string? clientApp = null,
        ulong? queryHash = null, bool queryHashSigned = false)
    {
        _clientApp = clientApp;
        _queryHash = queryHash;
        _queryHashSigned = queryHashSigned;
        Begin(_waitInfo);
        SetUInt(_waitInfo, 0, waitTypeKey);
        SetUInt(_waitInfo, 1, opcode);
        SetUInt(_waitInfo, 2, duration);
        SetUInt(_waitInfo, 3, signalDuration);
        Finish(_waitInfo, timestampUtc, databaseId, databaseName, sequence);
    }

    /// <summary>Writes package0.xel_writer_types, an event with a field of every base type.</summary>
    public void TypesProbe(DateTime timestampUtc, TypesProbeValues v, ulong? sequence = null)
    {
        ArgumentNullException.ThrowIfNull(v);
        var l = _probe;
        Begin(l);
        SetUInt(l, 0, (ulong)v.Int8);
        SetUInt(l, 1, (ulong)v.Int16);
        SetUInt(l, 2, (ulong)v.Int32);
        SetUInt(l, 3, (ulong)v.Int64);
        SetUInt(l, 4, v.UInt8);
        SetUInt(l, 5, v.UInt16);
        SetUInt(l, 6, v.UInt32);
        SetUInt(l, 7, v.UInt64);
        SetUInt(l, 8, BitConverter.SingleToUInt32Bits(v.Float32));
        SetUInt(l, 9, BitConverter.DoubleToUInt64Bits(v.Float64));
        SetUInt(l, 10, v.Boolean ? 1UL : 0UL);
        SetUInt(l, 11, v.Pointer);
        v.ActivityGuid.TryWriteBytes(_payload.Written[l.Offsets[12]..]);
        BinaryPrimitives.WriteUInt32LittleEndian(_payload.Written[(l.Offsets[12] + 16)..], v.ActivitySequence);
        SetUInt(l, 13, v.Color);
        SetUInt(l, 14, v.Flags);
        SetUInt(l, 15, v.UnknownFixed);
        SetUInt(l, 16, v.AfterUnknown);
        SetVariable(l, 17, Encoding.Unicode.GetBytes(v.Text));
        SetVariable(l, 18, Encoding.Latin1.GetBytes(v.Ansi));
        SetVariable(l, 19, v.Guid.ToByteArray());
        SetVariable(l, 20, v.Binary);
        SetVariable(l, 21, Encoding.Unicode.GetBytes(v.Xml));
        SetVariable(l, 22, v.UnknownVariable);
        Finish(l, timestampUtc, null, null, sequence);
    }

    /// <summary>Ends the current event buffer and re-sends the metadata (readers must merge it).</summary>
    public void ResendMetadata()
    {
        FlushEvents();
        WriteMetadata();
    }

    /// <summary>Writes the pending event buffer.</summary>
    public void Flush()
    {
        FlushEvents();
        _stream?.Flush();
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        Flush();
        _disposed = true;
    }

    private void Begin(EventLayout layout)
    {
        _payload.Clear();
        _variable.Clear();
        _actions.Clear();
        _payload.Fill(layout.SlotAreaLength, 0);
    }

    private void SetUInt(EventLayout layout, int field, ulong value)
    {
        var span = _payload.Written[layout.Offsets[field]..];
        switch (layout.Spec.Fields[field].Size)
        {
            case 1: span[0] = (byte)value; break;
            case 2: BinaryPrimitives.WriteUInt16LittleEndian(span, (ushort)value); break;
            case 4: BinaryPrimitives.WriteUInt32LittleEndian(span, (uint)value); break;
            case 8: BinaryPrimitives.WriteUInt64LittleEndian(span, value); break;
            default: throw new InvalidOperationException("not an integer field");
        }
    }

    private void SetVariable(EventLayout layout, int field, ReadOnlySpan<byte> value)
    {
        var slot = _payload.Written[layout.Offsets[field]..];
        BinaryPrimitives.WriteUInt32LittleEndian(slot, (uint)(layout.SlotAreaLength + _variable.Length));
        BinaryPrimitives.WriteUInt32LittleEndian(slot[4..], (uint)value.Length);
        _variable.Bytes(value);
    }

    private void Finish(EventLayout layout, DateTime timestampUtc, uint? databaseId, string? databaseName, ulong? sequence)
    {
        if (databaseId is { } db)
        {
            BinaryPrimitives.WriteUInt16LittleEndian(AddAction(_actionDatabaseId, 2), (ushort)db);
        }

        if (databaseName is not null)
        {
            _actions.U32(_actionDatabaseName);
            _actions.U32((uint)(databaseName.Length * 2));
            _actions.Utf16(databaseName);
        }

        if (_clientApp is { } app)
        {
            _actions.U32(_actionClientApp);
            _actions.U32((uint)(app.Length * 2));
            _actions.Utf16(app);
            _clientApp = null;
        }

        if (_queryHash is { } hash)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(AddAction(_queryHashSigned ? _actionQueryHashSigned : _actionQueryHash, 8), hash);
            _queryHash = null;
        }

        if (sequence is { } seq)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(AddAction(_actionSequence, 8), seq);
        }

        var hasActions = _actions.Length > 0;
        if (hasActions)
        {
            _actions.U32(XelConstants.ActionListTerminator);
            _actions.U32(0);
        }

        var payloadLength = _payload.Length + _variable.Length;
        var recordLength = XelConstants.RecordHeaderLength + payloadLength + _actions.Length;
        if (_buffer.Length > 0 && _buffer.Length + recordLength > _options.BufferSize)
        {
            FlushEvents();
        }

        if (_buffer.Length == 0)
        {
            _buffer.Fill(EventDataOffset, 0);
        }

        var flags = (uint)XelConstants.SupportedVersion | (hasActions ? XelConstants.HasActionsFlag : 0);
        if (_options.Garbage)
        {
            // Bits 6-30 are not meaningful; real files carry junk there.
            flags |= ((uint)_garbage.Next() << 6) & 0x7FFFFFC0;
        }

        _buffer.U32(layout.Rid);
        _buffer.U32(flags);
        _buffer.U32(0);
        _buffer.U64(Ticks(timestampUtc));
        _buffer.U32((uint)payloadLength);
        _buffer.Bytes(_payload.Written);
        _buffer.Bytes(_variable.Written);
        _buffer.Bytes(_actions.Written);
        EventCount++;
    }

    private Span<byte> AddAction(uint rid, int length)
    {
        _actions.U32(rid);
        _actions.U32((uint)length);
        return _actions.Reserve(length);
    }

    private ulong Ticks(DateTime timestampUtc)
    {
        var delta = (Int128)timestampUtc.ToUniversalTime().ToFileTimeUtc() - _startFileTime;
        if (delta < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(timestampUtc), "Events cannot precede the session start time");
        }

        return (ulong)(delta * _options.TickFrequency / 10_000_000);
    }

    private void FlushEvents()
    {
        if (_buffer.Length == 0)
        {
            return;
        }

        _sequence++;
        var data = _buffer.Written;
        WriteBufferHeader(data, type: 0, EventDataOffset, data.Length - EventDataOffset, _sequence);
        _signature.TryWriteBytes(data[0x20..]);
        data[0x4C] = 0xCC;
        Emit(0, Pad(data));
        _buffer.Clear();
        if (_options.ResendMetadataEveryBuffers > 0 && ++_buffersSinceMetadata >= _options.ResendMetadataEveryBuffers)
        {
            WriteMetadata();
        }
    }

    private void WriteMetadata()
    {
        _buffersSinceMetadata = 0;
        if (_options.SplitMetadataBuffers)
        {
            WriteMetadataBuffer(_packages.Take(1));
            WriteMetadataBuffer(_packages.Skip(1));
        }
        else
        {
            WriteMetadataBuffer(_packages);
        }
    }

    private void WriteMetadataBuffer(IEnumerable<PackageSpec> packages)
    {
        var s = new ByteSink(8192);
        s.Fill(MetadataDataOffset, 0);
        foreach (var p in packages)
        {
            WritePackage(s, p);
        }

        var data = s.Written;
        WriteBufferHeader(data, type: 1, MetadataDataOffset, data.Length - MetadataDataOffset, uint.MaxValue);
        Emit(1, Pad(data));
    }

    private void WritePackage(ByteSink s, PackageSpec p)
    {
        var start = s.Length;
        s.U16(XelConstants.SupportedVersion);
        s.U32(0); // size, patched below
        s.Guid(_signature);
        s.U16(0);
        s.U16(1);
        s.Fill(6, 0);
        s.I64(_startFileTime);
        s.U64(_options.TickFrequency);
        ObjectHeader(s, 10, 0, 1, Rid.Package(p.Index), p.Name);
        s.Guid(p.Id);
        s.Guid(p.Id);
        s.U16(0);
        s.U32(8);
        (int Kind, ushort Size, int Count)[] collections =
            [(0, 72, p.Events.Count), (1, 72, p.Actions.Count), (2, 56, 0), (3, 48, p.Maps.Count), (4, 80, 0), (5, 96, 0), (6, 40, p.Types.Count), (7, 32, 0)];
        foreach (var c in collections)
        {
            s.I32(c.Kind);
            s.U16(0);
            s.U16(c.Size);
            s.U32((uint)c.Count);
        }

        s.U32((uint)p.Events.Count);
        foreach (var e in p.Events)
        {
            ObjectHeader(s, 10, 2, 0, Rid.Event(p.Index, e.Index), e.Name);
            s.U16(1);
            s.U16(0);
            s.U16((ushort)e.Fields.Length);
            s.U16((ushort)e.FixedCount);
            s.U32(Rid.Type(16));
            s.WString("UUID");
            s.Guid(new Guid(Rid.Event(p.Index, e.Index), 0, 0, 1, 2, 3, 4, 5, 6, 7, 8));
            s.WString("event uuid");
            var layout = new EventLayout(p, e);
            for (var i = 0; i < e.Fields.Length; i++)
            {
                s.U32(e.Fields[i].TypeRid);
                s.WString(e.Fields[i].Name);
                s.U16((ushort)layout.Offsets[i]);
                s.U16(0);
                s.WString(e.Fields[i].Description);
            }
        }

        s.U32((uint)p.Actions.Count);
        foreach (var a in p.Actions)
        {
            ObjectHeader(s, 0, 2, 0, Rid.Action(p.Index, a.Index), a.Name);
            s.U32(a.TypeRid);
            s.U32(a.Storage);
            s.I32(0);
        }

        s.U32((uint)p.Maps.Count);
        foreach (var m in p.Maps)
        {
            ObjectHeader(s, 0, 0, (byte)(m.Bitmask ? 1 : 0), Rid.Map(p.Index, m.Index), m.Name);
            s.U8(m.ValueSize);
            s.U16((ushort)m.Entries.Count);
            foreach (var kv in m.Entries)
            {
                s.U32(kv.Key);
                s.WString(kv.Value);
            }
        }

        s.U32((uint)p.Types.Count);
        foreach (var t in p.Types)
        {
            ObjectHeader(s, 0, 0, 0, Rid.Type(t.BaseId), t.Name);
            s.U8(t.Size);
        }

        // Records are multiples of 8; the padding can be non-zero on real files.
        var pad = (8 - ((s.Length - start) % 8)) % 8;
        s.Fill(pad, _options.Garbage ? (byte)0x5A : (byte)0);
        s.PatchU32(start + 2, (uint)(s.Length - start));
    }

    private static void ObjectHeader(ByteSink s, ushort version, byte generic, byte specific, uint rid, string name)
    {
        s.U16(version);
        s.U8(generic);
        s.U8(specific);
        s.U32(rid);
        s.WString(name);
        s.WString(name + " (written by the test writer)");
    }

    private static void WriteBufferHeader(Span<byte> data, ushort type, int dataOffset, int dataLength, uint sequence)
    {
        data[..XelConstants.BufferHeaderLength].Clear();
        BinaryPrimitives.WriteUInt32LittleEndian(data[8..], sequence);
        BinaryPrimitives.WriteUInt16LittleEndian(data[0x0C..], XelConstants.SupportedVersion);
        BinaryPrimitives.WriteUInt16LittleEndian(data[0x0E..], type);
        BinaryPrimitives.WriteUInt32LittleEndian(data[0x10..], (uint)RoundUp(dataOffset + dataLength));
        BinaryPrimitives.WriteUInt16LittleEndian(data[0x16..], (ushort)dataOffset);
        BinaryPrimitives.WriteUInt32LittleEndian(data[0x18..], (uint)dataLength);
    }

    private byte[] Pad(ReadOnlySpan<byte> data)
    {
        var padded = new byte[RoundUp(data.Length)];
        data.CopyTo(padded);
        if (_options.Garbage)
        {
            // Slack after the data area may hold garbage.
            padded.AsSpan(data.Length).Fill(0xAB);
        }

        return padded;
    }

    private static int RoundUp(int length) => (length + 511) / 512 * 512;

    private byte[] FileHeader()
    {
        var h = new byte[XelConstants.DefaultFileHeaderLength];
        BinaryPrimitives.WriteUInt32LittleEndian(h, XelConstants.FileMagic);
        BinaryPrimitives.WriteUInt16LittleEndian(h.AsSpan(4), XelConstants.SupportedVersion);
        BinaryPrimitives.WriteUInt16LittleEndian(h.AsSpan(6), XelConstants.DefaultFileHeaderLength);
        Guid.NewGuid().TryWriteBytes(h.AsSpan(8));
        if (_options.Garbage)
        {
            // Real files can carry junk text in the rest of the header.
            Encoding.Unicode.GetBytes("junk in the header", h.AsSpan(0x1C8));
        }

        return h;
    }

    /// <summary>A 512-byte header row of no documented layout: a GUID and zeros, no file magic.</summary>
    private static byte[] StreamHeaderRow()
    {
        var h = new byte[XelConstants.DefaultFileHeaderLength];
        Guid.NewGuid().TryWriteBytes(h.AsSpan(8));
        return h;
    }

    private void Emit(int type, byte[] data)
    {
        if (_stream is not null)
        {
            _stream.Write(data);
        }
        else
        {
            _rowSink!(type, data);
        }
    }
}

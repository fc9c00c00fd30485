using System.Runtime.CompilerServices;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// One event record, valid only during the callback or until the reader advances (it points into a
/// pooled buffer). The record was bounds-checked once when it was created; accessors allocate nothing,
/// except the ones documented as allocating.
/// </summary>
public readonly ref struct XEventRecord
{
    private readonly ReadOnlySpan<byte> _payload;
    private readonly ReadOnlySpan<byte> _actions;

    // Where each action entry starts in _actions, found while the record was validated: reading an action then
    // costs independent loads instead of a walk where each step waits for the previous length. Empty when the
    // list was not indexed (more entries than the decoder keeps, or a record rebuilt by the pull API).
    private readonly ReadOnlySpan<int> _actionIndex;
    private readonly XEventDefinition? _event;
    private readonly string? _source;
    private readonly int _eventKey;
    private readonly long _clockReference;

    internal XEventRecord(ReadOnlySpan<byte> payload, ReadOnlySpan<byte> actions, XEventDefinition? definition, uint rid, ulong ticks, long position, string? source, int sourceIndex, long clockReference = XelClock.None)
        : this(payload, actions, default, definition, rid, ticks, position, source, sourceIndex, clockReference)
    {
    }

    internal XEventRecord(ReadOnlySpan<byte> payload, ReadOnlySpan<byte> actions, ReadOnlySpan<int> actionIndex, XEventDefinition? definition, uint rid, ulong ticks, long position, string? source, int sourceIndex, long clockReference = XelClock.None)
    {
        _clockReference = clockReference;
        _payload = payload;
        _actions = actions;
        _actionIndex = actionIndex;
        _event = definition;
        _eventKey = definition is null ? 0 : definition.Handle.Key;
        EventRid = rid;
        Ticks = ticks;
        Position = position;
        _source = source;
        SourceIndex = sourceIndex;
    }

    /// <summary>The event's RID as written in the record.</summary>
    public uint EventRid { get; }

    /// <summary>Raw clock ticks of the event's package.</summary>
    public ulong Ticks { get; }

    /// <summary>Offset of the record in its file or buffer.</summary>
    public long Position { get; }

    /// <summary>
    /// Index of the record's file in the list a reader was given (0 for a single file or stream): lets a handler
    /// keep per-file figures when a parallel reader mixes files on one worker.
    /// </summary>
    public int SourceIndex { get; }

    /// <summary>The event's definition, or null when the metadata did not declare its RID.</summary>
    public XEventDefinition? Definition => _event;

    /// <summary>Compare with a handle resolved in <see cref="IXEventHandler.OnMetadataChanged"/>.</summary>
    public EventHandle EventHandle => new(_eventKey);

    /// <summary>Event name (no allocation); empty when unknown.</summary>
    public string Name => _event?.Name ?? string.Empty;

    /// <summary>Package name (no allocation); empty when unknown.</summary>
    public string PackageName => _event?.Package.Name ?? string.Empty;

    /// <summary>The payload bytes (fields).</summary>
    public ReadOnlySpan<byte> Payload => _payload;

    /// <summary>Timestamp as a UTC FILETIME: start time + ticks * 10^7 / frequency, in 128 bits.</summary>
    public bool TryGetTimestamp(out DateTime utc)
    {
        var ok = TryGetTimestampTicks(out var ticks);
        utc = ok ? new DateTime(ticks, DateTimeKind.Utc) : default;
        return ok;
    }

    /// <summary>
    /// The timestamp as <see cref="DateTime.Ticks"/> of a UTC time (what <see cref="TryGetTimestamp"/> gives, without
    /// building the DateTime); false when the event is undeclared or its clock overflows.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetTimestampTicks(out long utcTicks)
    {
        if (_event is not null && _event.Package.TryTicksToFileTime(Ticks, out var ft))
        {
            // A FILETIME counts 100 ns from 1601 as DateTime ticks do from year 1; the conversion keeps it within DateTime's range.
            utcTicks = ft + FileTimeEpochTicks;
            return true;
        }

        utcTicks = 0;
        return false;
    }

    private static readonly long FileTimeEpochTicks = new DateTime(1601, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;

    /// <summary>
    /// The median time (UTC <see cref="DateTime.Ticks"/>) of the events of this record's buffer, when a file reader
    /// measured it (<see cref="XelClock"/>); false for a buffer of fewer than <see cref="XelClock.MinimumEvents"/> events
    /// with a valid clock, and for records of the live stream's decoder.
    /// </summary>
    public bool TryGetBufferTime(out long utcTicks)
    {
        utcTicks = _clockReference;
        return _clockReference != XelClock.None;
    }

    /// <summary>
    /// True when <paramref name="utcTicks"/> (this record's timestamp) lies more than <see cref="XelClock.Tolerance"/>
    /// from its buffer's median time: a clock value the file's other events say it cannot hold.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool IsTimeOutOfLine(long utcTicks) =>
        _clockReference != XelClock.None && (ulong)(utcTicks - _clockReference + ToleranceTicks) > 2 * (ulong)ToleranceTicks;

    /// <summary>
    /// True when a duration of <paramref name="durationTicks"/> ending at <paramref name="utcTicks"/> (this record's
    /// timestamp) would start more than <see cref="XelClock.Tolerance"/> before its buffer's median time (or, without
    /// one, lasts more than the tolerance): longer than anything the file's events can hold.
    /// </summary>
    public bool IsDurationOutOfLine(long utcTicks, long durationTicks)
    {
        var reference = _clockReference != XelClock.None ? Math.Min(_clockReference, utcTicks) : utcTicks;
        return durationTicks < 0 || durationTicks - (utcTicks - reference) > ToleranceTicks;
    }

    private static readonly long ToleranceTicks = XelClock.Tolerance.Ticks;

    /// <summary>Timestamp in UTC; a typed error when the event is undeclared or its clock overflows.</summary>
    public DateTime TimestampUtc => TryGetTimestamp(out var t)
        ? t
        : throw new XelFormatException($"Event 0x{EventRid:X8} has no valid timestamp (ticks {Ticks})", _source, Position);

    /// <summary>Locates a field by handle; false when the handle is for another event or the value is absent.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetField(FieldHandle field, out XEventValue value)
    {
        if (field.EventKey != _eventKey || _eventKey == 0)
        {
            value = default;
            return false;
        }

        var f = field.Field!;
        return Locate(f.Offset, f.Type.Size, f.IsVariable, f.Type.Kind, f.Type, out value);
    }

    /// <summary>Locates a field by name (a short linear search; prefer handles per event).</summary>
    public bool TryGetField(ReadOnlySpan<char> name, out XEventValue value)
    {
        var i = _event?.IndexOf(name) ?? -1;
        if (i < 0)
        {
            value = default;
            return false;
        }

        var f = _event!.FieldArray[i];
        return Locate(f.Offset, f.Type.Size, f.IsVariable, f.Type.Kind, f.Type, out value);
    }

    /// <summary>Locates an action value by handle.</summary>
    public bool TryGetAction(ActionHandle action, out XEventValue value)
    {
        if (action.Action is not null && TryFindAction(action.Rid, out var start, out var length))
        {
            value = new XEventValue(Bytes.Slice(_actions, start, length), action.Kind, action.Action.Type);
            return true;
        }

        value = default;
        return false;
    }

    /// <summary>Locates an action by <c>package.name</c> or bare name (linear; prefer handles).</summary>
    public bool TryGetAction(string name, XEventMetadata metadata, out XEventValue value)
    {
        if (metadata.TryGetAction(name, out var a))
        {
            return TryGetAction(new ActionHandle(a), out value);
        }

        value = default;
        return false;
    }

    /// <summary>Unsigned integer field (any width, map keys, booleans).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetUInt64(FieldHandle field, out ulong value)
    {
        // Fast path for the common case, a fixed-size unsigned field: one key compare, one bounds compare,
        // one read. The default handle has no fast size, and a record of an undeclared event never gets here
        // with a real handle (its key is 0, a resolved handle's never is).
        var size = field.FastSize;
        if (field.EventKey == _eventKey && size != 0 && (uint)field.Offset + (uint)size <= (uint)_payload.Length)
        {
            value = Bytes.Unsigned(_payload, field.Offset, size);
            return true;
        }

        return TryGetUInt64Slow(field, out value);
    }

    private bool TryGetUInt64Slow(FieldHandle field, out ulong value)
    {
        value = 0;
        return TryGetField(field, out var v) && v.TryGetUInt64(out value);
    }

    /// <summary>Unsigned integer action (any width).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetUInt64(ActionHandle action, out ulong value)
    {
        if (action.Action is not null && XEventValue.IsUnsignedKind(action.Kind))
        {
            // Fast path: scan for the RID and read the integer by its recorded length.
            if (TryFindAction(action.Rid, out var start, out var length) && length is 8 or 4 or 2 or 1)
            {
                value = Bytes.Unsigned(_actions, start, length);
                return true;
            }

            value = 0;
            return false;
        }

        value = 0;
        return TryGetAction(action, out var v) && v.TryGetUInt64(out value);
    }

    /// <summary>Signed integer field (any width).</summary>
    public bool TryGetInt64(FieldHandle field, out long value)
    {
        value = 0;
        return TryGetField(field, out var v) && v.TryGetInt64(out value);
    }

    /// <summary>Signed integer action (any width); unsigned values up to long.MaxValue read too.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetInt64(ActionHandle action, out long value)
    {
        if (XEventValue.IsUnsignedKind(action.Kind))
        {
            // event_sequence and ids are unsigned: take the fast unsigned path.
            var ok = TryGetUInt64(action, out var u) && u <= long.MaxValue;
            value = ok ? (long)u : 0;
            return ok;
        }

        value = 0;
        return TryGetAction(action, out var v) && v.TryGetInt64(out value);
    }

    /// <summary>Boolean field.</summary>
    public bool TryGetBoolean(FieldHandle field, out bool value)
    {
        value = false;
        return TryGetField(field, out var v) && v.TryGetBoolean(out value);
    }

    /// <summary>GUID field.</summary>
    public bool TryGetGuid(FieldHandle field, out Guid value)
    {
        value = default;
        return TryGetField(field, out var v) && v.TryGetGuid(out value);
    }

    /// <summary>Map field: key and text (no allocation for value maps).</summary>
    public bool TryGetMap(FieldHandle field, out ulong key, out string text)
    {
        key = 0;
        text = string.Empty;
        return TryGetField(field, out var v) && v.TryGetMap(out key, out text);
    }

    /// <summary>Bitmask map field: raw flags.</summary>
    public bool TryGetFlags(FieldHandle field, out ulong flags)
    {
        flags = 0;
        return TryGetField(field, out var v) && v.TryGetFlags(out flags);
    }

    /// <summary>Binary (or any variable) field bytes.</summary>
    public bool TryGetBytes(FieldHandle field, out ReadOnlySpan<byte> bytes)
    {
        var ok = TryGetField(field, out var v);
        bytes = ok ? v.Bytes : default;
        return ok;
    }

    /// <summary>Text field decoded into a caller buffer.</summary>
    public bool TryGetString(FieldHandle field, Span<char> destination, out int charsWritten)
    {
        charsWritten = 0;
        return TryGetField(field, out var v) && v.TryCopyString(destination, out charsWritten);
    }

    /// <summary>Text action decoded into a caller buffer.</summary>
    public bool TryGetString(ActionHandle action, Span<char> destination, out int charsWritten)
    {
        charsWritten = 0;
        return TryGetAction(action, out var v) && v.TryCopyString(destination, out charsWritten);
    }

    /// <summary>Allocating convenience: a text field, or null.</summary>
    public string? GetString(FieldHandle field) => TryGetField(field, out var v) ? v.GetString() : null;

    /// <summary>Allocating convenience: a text action, or null.</summary>
    public string? GetString(ActionHandle action) => TryGetAction(action, out var v) ? v.GetString() : null;

    /// <summary>Visits every action value in record order (no allocation).</summary>
    public ActionEnumerator EnumerateActions(XEventMetadata metadata) => new(_actions, _actionIndex, metadata);

    /// <summary>
    /// Materialises the event (allocates): name, timestamp, all fields and actions. ANSI strings are
    /// decoded with <paramref name="ansiEncoding"/> (default Latin-1; the server's code page is unknown).
    /// </summary>
    public XEventData ToData(XEventMetadata metadata, System.Text.Encoding? ansiEncoding = null)
    {
        var fields = new Dictionary<string, object?>(StringComparer.Ordinal);
        if (_event is not null)
        {
            foreach (var f in _event.FieldArray)
            {
                if (Locate(f.Offset, f.Type.Size, f.IsVariable, f.Type.Kind, f.Type, out var v) && v.ToObject(ansiEncoding) is { } o)
                {
                    fields[f.Name] = o;
                }
            }
        }

        var actions = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach (var a in EnumerateActions(metadata))
        {
            if (a.Definition is not null && a.Value.ToObject(ansiEncoding) is { } o)
            {
                actions[a.Definition.FullName] = o;
            }
        }

        return new XEventData(
            _event?.Name ?? $"unknown_0x{EventRid:X8}",
            _event?.Package.Name ?? string.Empty,
            TryGetTimestamp(out var t) ? t : null,
            fields,
            actions);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool Locate(int offset, int size, bool isVariable, ValueKind kind, XEventValueType type, out XEventValue value)
    {
        var p = _payload;
        if (isVariable)
        {
            if (offset <= p.Length - 8)
            {
                var start = Bytes.U32(p, offset);
                var length = Bytes.U32(p, offset + 4);
                if (start <= (uint)p.Length && length <= (uint)p.Length - start)
                {
                    value = new XEventValue(Bytes.Slice(p, (int)start, (int)length), kind, type);
                    return true;
                }
            }
        }
        else if (size > 0 && offset <= p.Length - size)
        {
            value = new XEventValue(Bytes.Slice(p, offset, size), kind, type);
            return true;
        }

        value = default;
        return false;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryFindAction(uint rid, out int start, out int length)
    {
        // The list was validated when the record was created (every entry fits), so it is read unchecked.
        var a = _actions;
        if (!_actionIndex.IsEmpty)
        {
            foreach (var at in _actionIndex)
            {
                if (Bytes.U32(a, at) == rid)
                {
                    start = at + 8;
                    length = (int)Bytes.U32(a, at + 4);
                    return true;
                }
            }

            start = length = 0;
            return false;
        }

        var pos = 0;
        while (pos <= a.Length - 8)
        {
            var len = (int)Bytes.U32(a, pos + 4);
            if (Bytes.U32(a, pos) == rid)
            {
                start = pos + 8;
                length = len;
                return true;
            }

            pos += 8 + len;
        }

        start = length = 0;
        return false;
    }

    /// <summary>An action found in a record.</summary>
    public readonly ref struct ActionEntry
    {
        internal ActionEntry(uint rid, XEventAction? definition, XEventValue value)
        {
            Rid = rid;
            Definition = definition;
            Value = value;
        }

        /// <summary>The action's RID.</summary>
        public uint Rid { get; }

        /// <summary>Its metadata, or null when undeclared.</summary>
        public XEventAction? Definition { get; }

        /// <summary>Its value.</summary>
        public XEventValue Value { get; }
    }

    /// <summary>Enumerates the actions of a record without allocating.</summary>
    public ref struct ActionEnumerator
    {
        private readonly ReadOnlySpan<byte> _list;
        private readonly ReadOnlySpan<int> _index;
        private readonly XEventMetadata _metadata;
        private readonly ActionSlot[] _cache;
        private int _next;
        private int _start;
        private int _length;
        private uint _rid;

        internal ActionEnumerator(ReadOnlySpan<byte> list, ReadOnlySpan<int> index, XEventMetadata metadata)
        {
            _list = list;
            _index = index;
            _metadata = metadata;
            _cache = metadata.ActionCache;
        }

        /// <summary>The current action (built on demand: MoveNext only steps).</summary>
        public readonly ActionEntry Current
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get
            {
                var bytes = Bytes.Slice(_list, _start, _length);
                ref readonly var slot = ref _cache[XEventMetadata.SlotOf(_rid)];
                if (slot.Rid == _rid && slot.Action is { } cached)
                {
                    return new ActionEntry(_rid, cached, new XEventValue(bytes, slot.Kind, slot.Type));
                }

                var a = _metadata.ActionByRid(_rid);
                return a is not null
                    ? new ActionEntry(_rid, a, new XEventValue(bytes, a.Kind, a.Type))
                    : new ActionEntry(_rid, null, new XEventValue(bytes, ValueKind.Unknown, null));
            }
        }

        /// <summary>For foreach.</summary>
        public readonly ActionEnumerator GetEnumerator() => this;

        /// <summary>Advances; the list was validated when the record was created.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool MoveNext()
        {
            int at;
            if (!_index.IsEmpty)
            {
                // Indexed: the next entry's position does not depend on this one's length.
                if (_next >= _index.Length)
                {
                    return false;
                }

                at = _index[_next++];
            }
            else
            {
                if (_next > _list.Length - 8)
                {
                    return false;
                }

                at = _next;
                _next = at + 8 + (int)Bytes.U32(_list, at + 4);
            }

            _rid = Bytes.U32(_list, at);
            _length = (int)Bytes.U32(_list, at + 4);
            _start = at + 8;
            return true;
        }
    }
}

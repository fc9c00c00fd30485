using System.Runtime.CompilerServices;

namespace LogFlushMonitor.XEvent.Metadata;

/// <summary>
/// The merged metadata of one stream or file: packages keyed by index, and the events, actions, maps and
/// types they declare. Re-sent metadata is merged in; a stream or file header starts a new instance.
/// Lookups allocate nothing; handles are resolved here once per change.
/// </summary>
public sealed class XEventMetadata
{
    private static int _nextKey;

    private readonly Dictionary<int, XEventPackage> _packages = [];
    private readonly Dictionary<uint, XEventDefinition> _eventsByRid = [];
    private readonly Dictionary<int, XEventDefinition> _eventsByKey = [];
    private readonly Dictionary<uint, XEventAction> _actionsByRid = [];
    private readonly Dictionary<uint, XEventMap> _mapsByRid = [];
    private readonly Dictionary<uint, (string Name, int Size)> _typesByRid = [];
    private readonly Dictionary<uint, XEventValueType> _resolved = [];

    // Direct-mapped caches in front of the dictionaries: a session uses a handful of events and actions,
    // and this lookup runs once per event and once per action.
    // Filled when a merge completes and only read afterwards, so a parallel reader's workers can share one
    // snapshot; a RID whose slot another took is found in the dictionary.
    private readonly (uint Rid, XEventDefinition? Value)[] _eventCache = new (uint, XEventDefinition?)[CacheSize];
    private readonly ActionSlot[] _actionCache = new ActionSlot[CacheSize];
    private const int CacheSize = 64;

    /// <summary>Increments at every merged metadata buffer.</summary>
    public int Version { get; private set; }

    /// <summary>Packages by index.</summary>
    public IReadOnlyDictionary<int, XEventPackage> Packages => _packages;

    /// <summary>All declared events.</summary>
    public IEnumerable<XEventDefinition> Events => _eventsByRid.Values;

    /// <summary>All declared actions.</summary>
    public IEnumerable<XEventAction> Actions => _actionsByRid.Values;

    /// <summary>All declared maps.</summary>
    public IEnumerable<XEventMap> Maps => _mapsByRid.Values;

    /// <summary>Finds an event by <c>package.name</c> or bare name.</summary>
    public bool TryGetEvent(string name, out XEventDefinition definition)
    {
        foreach (var e in _eventsByRid.Values)
        {
            if (Matches(name, e.Package.Name, e.Name))
            {
                definition = e;
                return true;
            }
        }

        definition = null!;
        return false;
    }

    /// <summary>The handle of an event by <c>package.name</c> or bare name; invalid when not declared.</summary>
    public EventHandle GetEventHandle(string name) => TryGetEvent(name, out var d) ? d.Handle : default;

    /// <summary>A field handle for <c>event</c>.<c>field</c>; invalid when either is absent.</summary>
    public FieldHandle GetFieldHandle(string eventName, string fieldName) =>
        TryGetEvent(eventName, out var d) ? d.GetFieldHandle(fieldName) : default;

    /// <summary>Finds an action by <c>package.name</c> or bare name.</summary>
    public bool TryGetAction(string name, out XEventAction action)
    {
        foreach (var a in _actionsByRid.Values)
        {
            if (Matches(name, a.PackageName, a.Name))
            {
                action = a;
                return true;
            }
        }

        action = null!;
        return false;
    }

    /// <summary>An action handle by <c>package.name</c> or bare name; invalid when not declared.</summary>
    public ActionHandle GetActionHandle(string name) => TryGetAction(name, out var a) ? new ActionHandle(a) : default;

    /// <summary>Finds a map by <c>package.name</c> or bare name.</summary>
    public bool TryGetMap(string name, out XEventMap map)
    {
        foreach (var m in _mapsByRid.Values)
        {
            if (Matches(name, m.PackageName, m.Name))
            {
                map = m;
                return true;
            }
        }

        map = null!;
        return false;
    }

    /// <summary>The definition behind a handle.</summary>
    public bool TryGetEvent(EventHandle handle, out XEventDefinition definition) =>
        _eventsByKey.TryGetValue(handle.Key, out definition!);

    /// <summary>The event a record's RID names, or null (returned, not an out parameter, so it stays in a register).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal XEventDefinition? EventByRid(uint rid)
    {
        ref readonly var slot = ref _eventCache[Slot(rid)];
        return slot.Rid == rid && slot.Value is { } cached ? cached : _eventsByRid.GetValueOrDefault(rid);
    }

    /// <summary>The action an action-list entry's RID names, or null.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal XEventAction? ActionByRid(uint rid)
    {
        ref readonly var slot = ref _actionCache[Slot(rid)];
        return slot.Rid == rid && slot.Action is { } cached ? cached : _actionsByRid.GetValueOrDefault(rid);
    }

    /// <summary>
    /// The action cache itself, for the action enumerator: each slot holds the action with its kind and type,
    /// so resolving an entry reads one cache line instead of following the action object.
    /// </summary>
    internal ActionSlot[] ActionCache => _actionCache;

    /// <summary>The cache slot of a RID.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int SlotOf(uint rid) => Slot(rid);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Slot(uint rid) => (int)((rid ^ (rid >> 10) ^ (rid >> 16)) & (CacheSize - 1));

    internal bool TryGetPackage(int index, out XEventPackage package) => _packages.TryGetValue(index, out package!);

    /// <summary>
    /// Merges what a freshly parsed (not yet completed) metadata object declares, in declaration order, then
    /// resolves types. Parsing into a separate object first makes a merge all or nothing.
    /// </summary>
    internal void MergeFrom(XEventMetadata parsed)
    {
        foreach (var p in parsed._packages.Values)
        {
            AddPackage(p);
        }

        foreach (var e in parsed._eventsByRid.Values)
        {
            AddEvent(e);
        }

        foreach (var a in parsed._actionsByRid.Values)
        {
            AddAction(a);
        }

        foreach (var m in parsed._mapsByRid.Values)
        {
            AddMap(m);
        }

        foreach (var (rid, t) in parsed._typesByRid)
        {
            AddType(rid, t.Name, t.Size);
        }

        Complete();
    }

    /// <summary>
    /// A copy that later merges can change without touching this one: a parallel reader keeps one snapshot per
    /// metadata buffer, and each worker decodes a buffer with the state the sequential reader would have had.
    /// Definitions keep their handle keys, so an unchanged event is the same event in both.
    /// </summary>
    internal XEventMetadata Snapshot()
    {
        var copy = new XEventMetadata { Version = Version };
        foreach (var (k, v) in _packages)
        {
            copy._packages[k] = v;
        }

        foreach (var (rid, e) in _eventsByRid)
        {
            var clone = e.CloneForSnapshot();
            copy._eventsByRid[rid] = clone;
            copy._eventsByKey[clone.Handle.Key] = clone;
        }

        foreach (var (rid, a) in _actionsByRid)
        {
            copy._actionsByRid[rid] = a.CloneForSnapshot();
        }

        foreach (var (rid, m) in _mapsByRid)
        {
            copy._mapsByRid[rid] = m;
        }

        foreach (var (rid, t) in _typesByRid)
        {
            copy._typesByRid[rid] = t;
        }

        copy.Complete();
        return copy;
    }

    internal void AddPackage(XEventPackage package) => _packages[package.Index] = package;

    internal void AddEvent(XEventDefinition definition)
    {
        if (_eventsByRid.TryGetValue(definition.Rid, out var existing))
        {
            if (existing.SameLayout(definition) && existing.Package.StartTimeFileTime == definition.Package.StartTimeFileTime)
            {
                return;
            }

            _eventsByKey.Remove(existing.Handle.Key);
        }

        definition.Handle = new EventHandle(Interlocked.Increment(ref _nextKey));
        _eventsByRid[definition.Rid] = definition;
        _eventsByKey[definition.Handle.Key] = definition;
    }

    internal void AddAction(XEventAction action) => _actionsByRid[action.Rid] = action;

    internal void AddMap(XEventMap map) => _mapsByRid[map.Rid] = map;

    internal void AddType(uint rid, string name, int size) => _typesByRid[rid] = (name, size);

    /// <summary>Resolves every field and action type after a metadata buffer was merged.</summary>
    internal void Complete()
    {
        _resolved.Clear();
        Array.Clear(_eventCache);
        Array.Clear(_actionCache);
        foreach (var e in _eventsByRid.Values)
        {
            foreach (var f in e.FieldArray)
            {
                f.Type = Resolve(f.TypeRid);
            }

            e.BuildFieldHandles();
        }

        foreach (var a in _actionsByRid.Values)
        {
            a.Type = Resolve(a.TypeRid);
        }

        foreach (var (rid, e) in _eventsByRid)
        {
            ref var slot = ref _eventCache[Slot(rid)];
            slot = slot.Value is null ? (rid, e) : slot;
        }

        foreach (var (rid, a) in _actionsByRid)
        {
            ref var slot = ref _actionCache[Slot(rid)];
            slot = slot.Action is null ? new ActionSlot(rid, a.Kind, a, a.Type) : slot;
        }

        Version++;
    }

    private XEventValueType Resolve(uint rid)
    {
        if (_resolved.TryGetValue(rid, out var cached))
        {
            return cached;
        }

        var kind = rid >> 28;
        var index = (rid >> 10) & 0x3FFFF;
        XEventValueType result;
        if (kind == 3)
        {
            result = _mapsByRid.TryGetValue(rid, out var map) ? XEventValueType.ForMap(map) : XEventValueType.Unresolved(rid);
        }
        else if (kind == 6)
        {
            var baseType = Enum.IsDefined((XEventBaseType)(int)index) ? (XEventBaseType)(int)index : XEventBaseType.Unknown;
            var size = XEventBaseTypes.SizeOf(baseType);
            var name = baseType.ToString();
            if (_typesByRid.TryGetValue(rid, out var declared))
            {
                name = declared.Name;
                // A declared fixed size wins only for types this reader cannot classify itself.
                if (baseType == XEventBaseType.Unknown)
                {
                    size = declared.Size;
                }
            }

            result = new XEventValueType(rid, name, baseType, size, null);
        }
        else
        {
            result = XEventValueType.Unresolved(rid);
        }

        _resolved[rid] = result;
        return result;
    }

    private static bool Matches(string query, string package, string name)
    {
        var dot = query.IndexOf('.', StringComparison.Ordinal);
        if (dot < 0)
        {
            return string.Equals(query, name, StringComparison.Ordinal);
        }

        return query.Length == package.Length + 1 + name.Length
            && query.AsSpan(0, dot).SequenceEqual(package)
            && query.AsSpan(dot + 1).SequenceEqual(name);
    }
}

/// <summary>One slot of the action cache: the RID, and the action with its value kind and type.</summary>
internal readonly record struct ActionSlot(uint Rid, ValueKind Kind, XEventAction? Action, XEventValueType? Type);

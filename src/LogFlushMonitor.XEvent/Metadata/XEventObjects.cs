using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.XEvent.Metadata;

/// <summary>A data field of an event: where it sits in the payload and its type.</summary>
public sealed class XEventField
{
    internal XEventField(string name, int index, int offset, uint typeRid, bool isVariable, ushort capabilities, string description = "")
    {
        Name = name;
        Description = description;
        Index = index;
        Offset = offset;
        TypeRid = typeRid;
        IsVariable = isVariable;
        Capabilities = capabilities;
        Type = XEventValueType.Unresolved(typeRid);
    }

    /// <summary>Field name.</summary>
    public string Name { get; }

    /// <summary>
    /// The field's description as the metadata gives it (the text <c>sys.dm_xe_object_columns.description</c> holds on
    /// the server); empty when none. It may name the field's unit ("duration in microseconds"), or not.
    /// </summary>
    public string Description { get; }

    /// <summary>Position among the event's data fields.</summary>
    public int Index { get; }

    /// <summary>Offset from the payload start (of the value, or of its 8-byte slot when variable).</summary>
    public int Offset { get; }

    /// <summary>RID of the field's type or map.</summary>
    public uint TypeRid { get; }

    /// <summary>True when the payload holds an {offset, length} slot instead of the value.</summary>
    public bool IsVariable { get; }

    /// <summary>Capability bits as declared (meaning not relied on).</summary>
    public ushort Capabilities { get; }

    /// <summary>Resolved type; <see cref="XEventBaseType.Unknown"/> when the metadata did not declare it.</summary>
    public XEventValueType Type { get; internal set; }

    /// <inheritdoc />
    public override string ToString() => $"{Name}:{Type}@{Offset}";
}

/// <summary>An event as declared in metadata.</summary>
public sealed class XEventDefinition
{
    internal XEventDefinition(uint rid, string name, XEventPackage package, XEventField[] fields, Guid uuid)
    {
        Rid = rid;
        Name = name;
        Package = package;
        FieldArray = fields;
        Uuid = uuid;
        FullName = package.Name + "." + name;
    }

    /// <summary>The event's RID, as found at the start of each event record.</summary>
    public uint Rid { get; }

    /// <summary>Event name, e.g. <c>log_flush_start</c>.</summary>
    public string Name { get; }

    /// <summary>Fully qualified name, e.g. <c>sqlserver.log_flush_start</c>.</summary>
    public string FullName { get; }

    /// <summary>The declaring package (which also gives the clock).</summary>
    public XEventPackage Package { get; }

    /// <summary>The event's UUID (first static attribute), or empty.</summary>
    public Guid Uuid { get; }

    /// <summary>Data fields in declaration order.</summary>
    public IReadOnlyList<XEventField> Fields => FieldArray;

    /// <summary>A handle to compare against <see cref="XEventRecord.EventHandle"/>.</summary>
    public EventHandle Handle { get; internal set; }

    internal XEventField[] FieldArray { get; }

    /// <summary>A handle for every field, in declaration order (for tools that read all fields).</summary>
    public ReadOnlySpan<FieldHandle> FieldHandles => _fieldHandles;

    private FieldHandle[] _fieldHandles = [];

    /// <summary>A copy with its own fields (types are re-resolved per snapshot) and the same handle key.</summary>
    internal XEventDefinition CloneForSnapshot()
    {
        var fields = new XEventField[FieldArray.Length];
        for (var i = 0; i < fields.Length; i++)
        {
            var f = FieldArray[i];
            fields[i] = new XEventField(f.Name, f.Index, f.Offset, f.TypeRid, f.IsVariable, f.Capabilities, f.Description);
        }

        return new XEventDefinition(Rid, Name, Package, fields, Uuid) { Handle = Handle };
    }

    internal void BuildFieldHandles()
    {
        var handles = new FieldHandle[FieldArray.Length];
        for (var i = 0; i < handles.Length; i++)
        {
            handles[i] = new FieldHandle(Handle.Key, FieldArray[i]);
        }

        _fieldHandles = handles;
    }

    /// <summary>Finds a field by name (ordinal); -1 when absent. No allocation.</summary>
    public int IndexOf(ReadOnlySpan<char> fieldName)
    {
        var fields = FieldArray;
        for (var i = 0; i < fields.Length; i++)
        {
            if (fieldName.SequenceEqual(fields[i].Name))
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>A handle to a field for fast per-event access; invalid when the field is absent.</summary>
    public FieldHandle GetFieldHandle(ReadOnlySpan<char> fieldName)
    {
        var i = IndexOf(fieldName);
        return i < 0 ? default : new FieldHandle(Handle.Key, FieldArray[i]);
    }

    internal bool SameLayout(XEventDefinition other)
    {
        if (other.Name != Name || other.FieldArray.Length != FieldArray.Length || other.Package.Name != Package.Name)
        {
            return false;
        }

        for (var i = 0; i < FieldArray.Length; i++)
        {
            var a = FieldArray[i];
            var b = other.FieldArray[i];
            if (a.Name != b.Name || a.Offset != b.Offset || a.TypeRid != b.TypeRid || a.IsVariable != b.IsVariable)
            {
                return false;
            }
        }

        return true;
    }

    /// <inheritdoc />
    public override string ToString() => FullName;
}

/// <summary>An action (global field) as declared in metadata.</summary>
public sealed class XEventAction
{
    internal XEventAction(uint rid, string name, string packageName, uint typeRid, uint storageSize)
    {
        Rid = rid;
        Name = name;
        PackageName = packageName;
        TypeRid = typeRid;
        StorageSize = storageSize;
        FullName = packageName + "." + name;
        Type = XEventValueType.Unresolved(typeRid);
    }

    /// <summary>The action's RID, as found in each event's action list.</summary>
    public uint Rid { get; }

    /// <summary>Action name, e.g. <c>database_id</c>.</summary>
    public string Name { get; }

    /// <summary>Declaring package name.</summary>
    public string PackageName { get; }

    /// <summary>Fully qualified name, e.g. <c>sqlserver.database_id</c>.</summary>
    public string FullName { get; }

    /// <summary>RID of the value type.</summary>
    public uint TypeRid { get; }

    /// <summary>Declared storage size (0 for some fixed types; the record's length is authoritative).</summary>
    public uint StorageSize { get; }

    /// <summary>Resolved value type.</summary>
    public XEventValueType Type
    {
        get => _type;
        internal set
        {
            _type = value;
            Kind = value.Kind;
        }
    }

    /// <summary>The value type's kind, kept beside it: read once per action per event.</summary>
    internal ValueKind Kind { get; private set; }

    private XEventValueType _type = null!;

    /// <summary>A copy whose type a snapshot resolves on its own.</summary>
    internal XEventAction CloneForSnapshot() => new(Rid, Name, PackageName, TypeRid, StorageSize);

    /// <inheritdoc />
    public override string ToString() => FullName;
}

namespace LogFlushMonitor.XEvent;

/// <summary>
/// Identifies an event definition within one metadata state. Handles from an earlier metadata state never
/// match records decoded after a reset or an incompatible re-definition.
/// </summary>
public readonly struct EventHandle : IEquatable<EventHandle>
{
    internal EventHandle(int key) => Key = key;

    internal int Key { get; }

    /// <summary>False for the default (unresolved) handle.</summary>
    public bool IsValid => Key != 0;

    /// <summary>Equality.</summary>
    public static bool operator ==(EventHandle left, EventHandle right) => left.Key == right.Key;

    /// <summary>Inequality.</summary>
    public static bool operator !=(EventHandle left, EventHandle right) => left.Key != right.Key;

    /// <inheritdoc />
    public bool Equals(EventHandle other) => Key == other.Key;

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is EventHandle h && h.Key == Key;

    /// <inheritdoc />
    public override int GetHashCode() => Key;
}

/// <summary>A pre-resolved field of one event: reading it costs a compare and a bounded read.</summary>
public readonly struct FieldHandle
{
    internal FieldHandle(int eventKey, XEventField field)
    {
        EventKey = eventKey;
        Field = field;
        Type = field.Type;
        // Offset, size, kind and the variable flag packed in one int: a handle of four fields stays
        // small enough for the JIT to keep in registers on the per-value path.
        _layout = (field.Offset & 0xFFFF)
            | ((Math.Clamp(field.Type.Size, -1, 510) + 1) << 16)
            | ((int)field.Type.Kind << 25)
            | (field.IsVariable ? 1 << 30 : 0);
    }

    private readonly int _layout;

    internal int EventKey { get; }

    internal XEventField? Field { get; }

    internal XEventValueType? Type { get; }

    internal int Offset => _layout & 0xFFFF;

    internal int Size => ((_layout >> 16) & 0x1FF) - 1;

    internal ValueKind Kind => (ValueKind)((_layout >> 25) & 0x1F);

    internal bool IsVariable => (_layout & (1 << 30)) != 0;

    /// <summary>False for the default handle (field absent).</summary>
    public bool IsValid => Field is not null;

    /// <summary>The field's metadata, or null when invalid.</summary>
    public XEventField? Definition => Field;
}

/// <summary>A pre-resolved action; per event it costs a short scan of the action list.</summary>
public readonly struct ActionHandle
{
    internal ActionHandle(XEventAction action)
    {
        Action = action;
        Rid = action.Rid;
        Size = action.Type.Size;
        Kind = action.Type.Kind;
    }

    internal XEventAction? Action { get; }

    internal uint Rid { get; }

    internal int Size { get; }

    internal ValueKind Kind { get; }

    /// <summary>False for the default handle (action not declared).</summary>
    public bool IsValid => Action is not null;

    /// <summary>The action's metadata, or null when invalid.</summary>
    public XEventAction? Definition => Action;
}

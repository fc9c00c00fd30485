using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.XEvent.Metadata;

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
        Offset = (ushort)field.Offset;
        // Fixed-size integers (also map keys and booleans) take the one-read path of XEventRecord.TryGetUInt64.
        FastSize = !field.IsVariable && XEventValue.IsUnsignedKind(field.Type.Kind) && field.Type.Size is 1 or 2 or 4 or 8
            ? (byte)field.Type.Size
            : (byte)0;
    }

    // Kept to 16 bytes (key, offset, fast size, one reference) so a handle copied per read stays in registers.
    internal int EventKey { get; }

    internal ushort Offset { get; }

    /// <summary>1, 2, 4 or 8 for a fixed-size unsigned value; 0 when the general path must decode it.</summary>
    internal byte FastSize { get; }

    internal XEventField? Field { get; }

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

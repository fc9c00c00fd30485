namespace LogFlushMonitor.XEvent.TestSupport;

/// <summary>Declarative metadata the test writer emits, following docs/xel-format.md.</summary>
internal static class Rid
{
    public static uint Package(int index) => (8u << 28) | (uint)index;

    public static uint Event(int package, int index) => ((uint)index << 10) | (uint)package;

    public static uint Action(int package, int index) => (1u << 28) | ((uint)index << 10) | (uint)package;

    public static uint Map(int package, int index) => (3u << 28) | ((uint)index << 10) | (uint)package;

    public static uint Type(int baseId) => (6u << 28) | ((uint)baseId << 10);
}

internal sealed record FieldSpec(string Name, uint TypeRid, int Size, string Description = "");

internal sealed record EventSpec(string Name, int Index, FieldSpec[] Fields)
{
    public int FixedCount => Fields.Count(f => f.Size > 0);
}

internal sealed record ActionSpec(string Name, int Index, uint TypeRid, uint Storage);

internal sealed record MapSpec(string Name, int Index, bool Bitmask, byte ValueSize, IReadOnlyList<KeyValuePair<uint, string>> Entries);

internal sealed record TypeSpec(string Name, int BaseId, byte Size);

internal sealed record PackageSpec(string Name, int Index, Guid Id, List<EventSpec> Events, List<ActionSpec> Actions, List<MapSpec> Maps, List<TypeSpec> Types);

/// <summary>Where each field of an event lands in the payload.</summary>
internal sealed class EventLayout
{
    public EventLayout(PackageSpec package, EventSpec spec)
    {
        Rid = XEvent.TestSupport.Rid.Event(package.Index, spec.Index);
        Spec = spec;
        Offsets = new int[spec.Fields.Length];
        var off = 0;
        // Fixed-size fields first, packed; then one 8-byte slot per variable field.
        for (var i = 0; i < spec.Fields.Length; i++)
        {
            Offsets[i] = off;
            off += spec.Fields[i].Size > 0 ? spec.Fields[i].Size : 8;
        }

        SlotAreaLength = off;
    }

    public uint Rid { get; }

    public EventSpec Spec { get; }

    public int[] Offsets { get; }

    public int SlotAreaLength { get; }
}

using System.Text;

namespace LogFlushMonitor.XEvent.Metadata;

/// <summary>A map (value map or bitmask map) from a metadata buffer.</summary>
public sealed class XEventMap
{
    private readonly Dictionary<uint, string> _entries;
    private readonly KeyValuePair<uint, string>[] _ordered;

    /// <summary>Creates a map (public so XML and test tools can build one).</summary>
    public XEventMap(uint rid, string name, string packageName, bool isBitmask, int valueSize, IEnumerable<KeyValuePair<uint, string>> entries)
    {
        Rid = rid;
        Name = name;
        PackageName = packageName;
        IsBitmask = isBitmask;
        ValueSize = valueSize;
        _entries = [];
        foreach (var e in entries)
        {
            _entries[e.Key] = e.Value;
        }

        _ordered = [.. _entries.OrderBy(e => e.Key)];
    }

    /// <summary>The map's RID.</summary>
    public uint Rid { get; }

    /// <summary>Map name, e.g. <c>wait_types</c>.</summary>
    public string Name { get; }

    /// <summary>Name of the declaring package.</summary>
    public string PackageName { get; }

    /// <summary>Fully qualified name (<c>package.name</c>).</summary>
    public string FullName => PackageName + "." + Name;

    /// <summary>True when values are bit flags.</summary>
    public bool IsBitmask { get; }

    /// <summary>Storage size of a value in bytes (1, 2, 4 or 8).</summary>
    public int ValueSize { get; }

    /// <summary>Entries by key.</summary>
    public IReadOnlyDictionary<uint, string> Entries => _entries;

    /// <summary>The text of a key; no allocation.</summary>
    public bool TryGetText(ulong key, out string text)
    {
        if (key <= uint.MaxValue && _entries.TryGetValue((uint)key, out var t))
        {
            text = t;
            return true;
        }

        text = string.Empty;
        return false;
    }

    /// <summary>Describes a bitmask value as <c>A, B</c> (allocates); unknown bits appear as hex.</summary>
    public string FormatFlags(ulong value)
    {
        if (value == 0)
        {
            return _entries.TryGetValue(0, out var zero) ? zero : string.Empty;
        }

        var sb = new StringBuilder();
        var rest = value;
        foreach (var e in _ordered)
        {
            if (e.Key != 0 && (value & e.Key) == e.Key)
            {
                if (sb.Length > 0)
                {
                    sb.Append(", ");
                }

                sb.Append(e.Value);
                rest &= ~(ulong)e.Key;
            }
        }

        if (rest != 0)
        {
            if (sb.Length > 0)
            {
                sb.Append(", ");
            }

            sb.Append("0x").Append(rest.ToString("X", System.Globalization.CultureInfo.InvariantCulture));
        }

        return sb.ToString();
    }

    /// <inheritdoc />
    public override string ToString() => FullName;
}

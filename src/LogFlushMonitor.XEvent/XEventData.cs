using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.XEvent;

/// <summary>
/// A materialised event (allocating), for tools that want a dictionary. Values are long, ulong, bool,
/// double, Guid, string, byte[], <see cref="XEventActivityId"/> or <see cref="XEventMapValue"/>.
/// Actions are keyed by <c>package.name</c>.
/// </summary>
public sealed record XEventData(
    string Name,
    string PackageName,
    DateTime? TimestampUtc,
    IReadOnlyDictionary<string, object?> Fields,
    IReadOnlyDictionary<string, object?> Actions)
{
    /// <summary>Fully qualified name.</summary>
    public string FullName => PackageName.Length == 0 ? Name : PackageName + "." + Name;

    /// <summary>A field or action (by full or bare name) as an unsigned integer, when it is one.</summary>
    public ulong? GetUInt64(string name) => Find(name) switch
    {
        ulong u => u,
        long l when l >= 0 => (ulong)l,
        bool b => b ? 1UL : 0UL,
        XEventMapValue m => m.Key,
        _ => null,
    };

    /// <summary>A field or action as text (strings, map texts, numbers formatted invariantly).</summary>
    public string? GetString(string name) => Find(name) switch
    {
        null => null,
        string s => s,
        IFormattable f => f.ToString(null, System.Globalization.CultureInfo.InvariantCulture),
        var o => o.ToString(),
    };

    /// <summary>A field, else an action by full name, else an action by bare name.</summary>
    public object? Find(string name)
    {
        if (Fields.TryGetValue(name, out var v) || Actions.TryGetValue(name, out v))
        {
            return v;
        }

        foreach (var kv in Actions)
        {
            var dot = kv.Key.IndexOf('.', StringComparison.Ordinal);
            if (dot >= 0 && kv.Key.AsSpan(dot + 1).SequenceEqual(name))
            {
                return kv.Value;
            }
        }

        return null;
    }
}

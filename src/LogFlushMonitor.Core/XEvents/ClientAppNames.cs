using System.Runtime.InteropServices;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.Core.XEvents;

/// <summary>
/// Interns the <c>sqlserver.client_app_name</c> action's text on the reading thread: a name seen before is found by
/// the hash of its UTF-16 bytes and compared with the stored string's bytes, so the per-event path allocates nothing;
/// a new name is decoded once. Only the first <see cref="MetricAttributes.MaxValueLength"/> + 1 characters are read
/// (the key and the string both): names alike up to there export the same cut label value anyway, and a hostile
/// 10 KB name costs no more than a 257-character one. Once <see cref="Capacity"/> names are held, a new one maps to
/// <see cref="Unlisted"/> (the aggregation folds it into <c>other</c>) and is counted in <see cref="Refused"/>.
/// </summary>
/// <remarks>Used by one reading thread only (like <see cref="XEventSampleMapper"/>).</remarks>
public sealed class ClientAppNames
{
    /// <summary>Distinct names held per reader: far more than the top 5 per database needs, small enough to scan nothing.</summary>
    public const int Capacity = 1024;

    /// <summary>The name given to every application past <see cref="Capacity"/>: folded into <c>other</c>.</summary>
    public const string Unlisted = "";

    private const int Buckets = 2048; // a power of two, twice the capacity: short chains
    private readonly int[] _heads = new int[Buckets];
    private readonly int[] _next = new int[Capacity];
    private readonly int[] _hashes = new int[Capacity];
    private readonly string[] _names = new string[Capacity];
    private int _count;

    /// <summary>Creates an empty table.</summary>
    public ClientAppNames() => Array.Fill(_heads, -1);

    /// <summary>Distinct names held.</summary>
    public int Count => _count;

    /// <summary>New names refused because the table was full (each such event is attributed to <c>other</c>).</summary>
    public long Refused { get; private set; }

    /// <summary>
    /// The interned name of <paramref name="value"/> (its first <see cref="MetricAttributes.MaxValueLength"/> + 1
    /// characters: the aggregation cuts it to the exported length with <see cref="MetricAttributes.Limit"/>, which counts
    /// the cut); null when the value is not text.
    /// </summary>
    public string? Intern(in XEventValue value)
    {
        if (!value.IsUtf16Text || !BitConverter.IsLittleEndian)
        {
            // ANSI text or another type: no catalog declares client_app_name so; decoded each time, bounded the same way.
            return value.GetString() is { } s ? (s.Length > MetricAttributes.MaxValueLength + 1 ? s[..(MetricAttributes.MaxValueLength + 1)] : s) : null;
        }

        var bytes = value.Bytes[..(value.Bytes.Length & ~1)];
        var maxBytes = (MetricAttributes.MaxValueLength + 1) * 2;
        if (bytes.Length > maxBytes)
        {
            bytes = bytes[..maxBytes];
        }

        var hash = Hash(bytes);
        for (var i = _heads[hash & (Buckets - 1)]; i >= 0; i = _next[i])
        {
            if (_hashes[i] == hash && MemoryMarshal.AsBytes(_names[i].AsSpan()).SequenceEqual(bytes))
            {
                return _names[i];
            }
        }

        if (_count == Capacity)
        {
            Refused++;
            return Unlisted;
        }

        // First sight: the (already bounded) text is the key, so later events compare equal to it.
        var text = MemoryMarshal.Cast<byte, char>(bytes).ToString();
        var slot = _count++;
        _names[slot] = text;
        _hashes[slot] = hash;
        _next[slot] = _heads[hash & (Buckets - 1)];
        _heads[hash & (Buckets - 1)] = slot;
        return text;
    }

    /// <summary>FNV-1a over the bytes: stable, cheap, no allocation.</summary>
    private static int Hash(ReadOnlySpan<byte> bytes)
    {
        var h = 2166136261u;
        foreach (var b in bytes)
        {
            h = (h ^ b) * 16777619u;
        }

        return (int)h;
    }
}

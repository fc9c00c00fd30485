using System.Text.Json;

namespace LogFlushMonitor.Recording;

/// <summary>
/// Interns the strings of a replay that repeat (instance, database, wait type, counter names): one instance name is
/// one string object for the whole replay, and a string seen before costs no allocation.
/// </summary>
/// <remarks>Not thread-safe: one replay owns one.</remarks>
internal sealed class NdjsonStringInterner
{
    // Beyond this many distinct strings (hostile input) new ones are no longer interned.
    private const int MaxInterned = 100_000;

    private readonly Dictionary<string, string> _interned = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string>.AlternateLookup<ReadOnlySpan<char>> _lookup;
    private char[] _chars = new char[256];

    public NdjsonStringInterner() => _lookup = _interned.GetAlternateLookup<ReadOnlySpan<char>>();

    /// <summary>The string the reader stands on, interned.</summary>
    public string Intern(ref Utf8JsonReader reader)
    {
        // UTF-8 never takes fewer bytes than UTF-16 code units, so the raw length bounds the decoded one.
        var max = reader.HasValueSequence ? (int)reader.ValueSequence.Length : reader.ValueSpan.Length;
        if (_chars.Length < max)
        {
            _chars = new char[Math.Max(max, _chars.Length * 2)];
        }

        var chars = _chars.AsSpan(0, reader.CopyString(_chars));
        if (_lookup.TryGetValue(chars, out var known))
        {
            return known;
        }

        var s = new string(chars);
        if (_interned.Count < MaxInterned)
        {
            _interned[s] = s;
        }

        return s;
    }
}

using System.Globalization;
using System.Text;

namespace LogFlushMonitor.SqlServer.Fleet;

/// <summary>
/// <c>--shard i/n</c>: replica i of n watches the instances whose name hashes to i. The hash (FNV-1a, 32 bits,
/// over the UTF-8 of the lower-case name) is stable across processes, machines and .NET versions, so n replicas
/// split any fleet completely and without overlap.
/// </summary>
public readonly record struct Shard(int Index, int Count)
{
    /// <summary>Every instance (no sharding).</summary>
    public static Shard All => new(1, 1);

    /// <summary>Parses "i/n" (1 ≤ i ≤ n); null or empty means <see cref="All"/>.</summary>
    public static bool TryParse(string? text, out Shard shard, out string? problem)
    {
        shard = All;
        problem = null;
        if (string.IsNullOrWhiteSpace(text))
        {
            return true;
        }

        var parts = text.Split('/');
        if (parts.Length != 2 ||
            !int.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out var i) ||
            !int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var n))
        {
            problem = $"'{text}' is not of the form i/n (e.g. 2/3)";
            return false;
        }

        if (n < 1 || i < 1 || i > n)
        {
            problem = $"'{text}' needs 1 <= i <= n";
            return false;
        }

        shard = new Shard(i, n);
        return true;
    }

    /// <summary>Parses "i/n" or throws <see cref="FormatException"/>.</summary>
    public static Shard Parse(string? text) => TryParse(text, out var s, out var problem) ? s : throw new FormatException($"Shard {problem}.");

    /// <summary>FNV-1a 32-bit of the UTF-8 bytes of the lower-case (invariant) name.</summary>
    public static uint Hash(string instanceName)
    {
        const uint offsetBasis = 2166136261;
        const uint prime = 16777619;
        var hash = offsetBasis;
        foreach (var b in Encoding.UTF8.GetBytes(instanceName.ToLowerInvariant()))
        {
            hash = unchecked((hash ^ b) * prime);
        }

        return hash;
    }

    /// <summary>Whether this shard watches <paramref name="instanceName"/>.</summary>
    public bool Owns(string instanceName) => Hash(instanceName) % (uint)Count == (uint)(Index - 1);

    /// <inheritdoc />
    public override string ToString() => $"{Index}/{Count}";
}

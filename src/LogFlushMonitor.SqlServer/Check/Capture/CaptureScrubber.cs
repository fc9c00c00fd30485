using System.Text;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.SqlServer.Check.Capture;

/// <summary>
/// Takes out of a capture what must never be in it, and, with <c>--anonymize</c>, the names of user databases and instances.
/// The connection string and password are never recorded at all; the login name and this machine's name could still come
/// back in a server's text (an error message), so every text is rewritten: the login becomes <c>&lt;login&gt;</c>, the
/// machine <c>&lt;client-host&gt;</c>. With anonymizing, user databases (database_id above 4) become db1, db2, ... in
/// database_id order, the same name in every entry; system databases (master, tempdb, model, msdb) and the engine's
/// internal counter instances keep their names, which are the same on every server and tell the reader what a row is.
/// Binary stream rows cannot be rewritten safely (an event's string has its length in front of it, a buffer its checksum):
/// a row whose bytes hold any of these names (UTF-16 or UTF-8) is dropped and counted in the manifest instead.
/// </summary>
public sealed class CaptureScrubber
{
    /// <summary>Shorter names are not looked for in binary rows: two or three letters occur by chance in catalog descriptions.</summary>
    internal const int MinBinaryName = 4;

    private readonly List<(Regex Pattern, string Replacement)> _text = [];
    private readonly Dictionary<string, string> _exact = new(StringComparer.OrdinalIgnoreCase);
    private readonly List<byte[]> _binary = [];

    /// <summary>Builds the rewriting for <paramref name="logins"/> and <paramref name="clientHost"/> and, when given, <paramref name="databases"/> (id, name) and <paramref name="instances"/>.</summary>
    public CaptureScrubber(IEnumerable<string> logins, string? clientHost, IEnumerable<(int Id, string Name)>? databases, IEnumerable<string>? instances)
    {
        var n = 0;
        foreach (var (_, name) in (databases ?? []).Where(d => d.Id > 4).OrderBy(d => d.Id).DistinctBy(d => d.Name, StringComparer.OrdinalIgnoreCase))
        {
            Add(name, $"db{++n}");
        }

        n = 0;
        foreach (var name in (instances ?? []).Distinct(StringComparer.OrdinalIgnoreCase))
        {
            Add(name, $"instance{++n}");
        }

        foreach (var login in logins.Where(l => !string.IsNullOrEmpty(l)))
        {
            Add(login, "<login>");
        }

        if (!string.IsNullOrEmpty(clientHost))
        {
            Add(clientHost, "<client-host>");
        }
    }

    /// <summary>The replacement of each name (for the manifest's count and the tests), by original name.</summary>
    public IReadOnlyDictionary<string, string> Names => _exact;

    /// <summary><paramref name="value"/> with every name replaced: a cell that is the name (nchar padding kept) or the name as a word inside text.</summary>
    public string Text(string value)
    {
        var trimmed = value.TrimEnd(' ');
        if (_exact.TryGetValue(trimmed, out var exact))
        {
            return trimmed.Length < value.Length ? exact.PadRight(value.Length) : exact; // nchar(128) stays 128 long
        }

        foreach (var (pattern, replacement) in _text)
        {
            value = pattern.Replace(value, replacement);
        }

        return value;
    }

    /// <summary>Whether <paramref name="data"/> holds any of the names and so must not leave the machine.</summary>
    public bool Hides(ReadOnlySpan<byte> data)
    {
        foreach (var b in _binary)
        {
            if (data.IndexOf(b) >= 0)
            {
                return true;
            }
        }

        return false;
    }

    private void Add(string name, string replacement)
    {
        if (_exact.ContainsKey(name))
        {
            return;
        }

        _exact[name] = replacement;
        // A name as a whole word: "sales" in "database 'sales'" but not in "wholesales".
        _text.Add((new Regex($@"(?<![\w]){Regex.Escape(name)}(?![\w])", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant), replacement));
        if (name.Length >= MinBinaryName)
        {
            _binary.Add(Encoding.Unicode.GetBytes(name));
            _binary.Add(Encoding.UTF8.GetBytes(name));
        }
    }
}

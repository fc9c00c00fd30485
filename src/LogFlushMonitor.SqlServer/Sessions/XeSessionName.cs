using System.Text.RegularExpressions;

namespace LogFlushMonitor.SqlServer.Sessions;

/// <summary>
/// Validates and bracket-quotes Extended Events session names. A session name is the one configured value that
/// must appear in DDL (sessions cannot be named by a parameter), so it is restricted to letters, digits, '_' and
/// '-' and quoted as well.
/// </summary>
public static partial class XeSessionName
{
    /// <summary>Longest accepted name; leaves room for the histogram sessions' suffix within sysname.</summary>
    public const int MaxLength = 100;

    /// <summary>Whether <paramref name="name"/> is an acceptable session name.</summary>
    public static bool IsValid(string? name) => name is not null && name.Length <= MaxLength && Allowed().IsMatch(name);

    /// <summary>Throws an <see cref="ArgumentException"/> naming the setting when <paramref name="name"/> is not acceptable.</summary>
    public static string Validate(string? name) =>
        IsValid(name) ? name! : throw new ArgumentException(
            $"SessionName must be 1-{MaxLength} letters, digits, '_' or '-' (got {(name is null ? "none" : name.Length + " characters, not all of them allowed")}).", nameof(name));

    /// <summary>The validated name in brackets, ready for DDL (']' doubled should validation ever widen).</summary>
    public static string Quote(string name) => "[" + Validate(name).Replace("]", "]]", StringComparison.Ordinal) + "]";

    [GeneratedRegex("^[A-Za-z0-9_-]+$", RegexOptions.CultureInvariant)]
    private static partial Regex Allowed();
}

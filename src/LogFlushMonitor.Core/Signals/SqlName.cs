namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// The one rule for a name that must enter T-SQL text as an identifier (a database name in a three-part name, DDL that
/// cannot take a parameter): 1 to 128 characters (sysname), no control characters, bracket-quoted with every ']' doubled.
/// <c>SqlIdentifier</c> of the SQL Server project applies the same rule to settings.
/// </summary>
public static class SqlName
{
    /// <summary>sysname is nvarchar(128).</summary>
    public const int MaxLength = 128;

    /// <summary>Why <paramref name="name"/> cannot be an identifier, or null when it can.</summary>
    public static string? Problem(string? name)
    {
        if (string.IsNullOrEmpty(name))
        {
            return "is empty";
        }

        if (name.Length > MaxLength)
        {
            return $"is {name.Length} characters long (at most {MaxLength})";
        }

        foreach (var c in name)
        {
            if (char.IsControl(c))
            {
                return $"contains the control character U+{(int)c:X4}";
            }
        }

        return null;
    }

    /// <summary><c>[name]</c> with every ']' doubled; null when <paramref name="name"/> cannot be an identifier (<see cref="Problem"/>).</summary>
    public static string? TryQuote(string? name) =>
        Problem(name) is null ? "[" + name!.Replace("]", "]]", StringComparison.Ordinal) + "]" : null;
}

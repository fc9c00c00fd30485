namespace LogFlushMonitor.SqlServer.Sql;

/// <summary>
/// The one gate for names that must enter T-SQL text as identifiers (DDL cannot take parameters): validated
/// (1 to 128 characters, no control characters) and bracket-quoted with ']' doubled. Prefer parameters wherever
/// the statement allows them.
/// </summary>
public static class SqlIdentifier
{
    /// <summary>sysname is nvarchar(128).</summary>
    public const int MaxLength = Core.Signals.SqlName.MaxLength;

    /// <summary>Why <paramref name="name"/> cannot be an identifier, or null when it can (the rule of <see cref="Core.Signals.SqlName"/>).</summary>
    public static string? Problem(string? name) => Core.Signals.SqlName.Problem(name);

    /// <summary>Throws <see cref="ArgumentException"/> naming <paramref name="setting"/> when <paramref name="name"/> is not a valid identifier.</summary>
    public static string Validate(string? name, string setting) =>
        Problem(name) is { } problem ? throw new ArgumentException($"{setting} {problem}.", setting) : name!;

    /// <summary><c>[name]</c> with every ']' doubled, after validation.</summary>
    public static string Quote(string name, string setting = "name") =>
        "[" + Validate(name, setting).Replace("]", "]]", StringComparison.Ordinal) + "]";

    /// <summary>An nvarchar literal <c>N'...'</c> with every quote doubled, for the few places (scripts) that cannot use a parameter.</summary>
    public static string QuoteLiteral(string value) =>
        "N'" + value.Replace("'", "''", StringComparison.Ordinal) + "'";
}

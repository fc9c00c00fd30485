using System.Globalization;

namespace LogFlushMonitor.SqlServer.Sessions;

/// <summary>How the configured include/exclude lists resolved to database ids on the server.</summary>
public enum DatabaseFilterKind
{
    /// <summary>No list: user databases and tempdb (database_id = 2 or &gt; 4).</summary>
    AllUser,

    /// <summary>Only the listed ids.</summary>
    Include,

    /// <summary>User databases and tempdb except the listed ids.</summary>
    Exclude,
}

/// <summary>
/// The watched databases as ids (resolved with a parameterised query, so no configured name ever enters DDL),
/// and the names the server reported for them.
/// </summary>
/// <param name="Kind">How to read <paramref name="Ids"/>.</param>
/// <param name="Ids">Included ids, or excluded ids for <see cref="DatabaseFilterKind.Exclude"/>.</param>
/// <param name="Names">Known names by id (the included databases, or every user database when listed).</param>
public sealed record DatabaseSelection(DatabaseFilterKind Kind, IReadOnlyList<int> Ids, IReadOnlyDictionary<int, string> Names)
{
    /// <summary>
    /// An XE predicate on <paramref name="source"/> (e.g. <c>[database_id]</c> or <c>[sqlserver].[database_id]</c>),
    /// or null when nothing is to be filtered. An include list that resolved to nothing matches nothing
    /// (<c>= (0)</c>), rather than silently watching everything.
    /// </summary>
    public string? Predicate(string source) => Kind switch
    {
        DatabaseFilterKind.AllUser => $"({source} = (2) OR {source} > (4))",
        DatabaseFilterKind.Include when Ids.Count == 0 => $"({source} = (0))",
        DatabaseFilterKind.Include => "(" + string.Join(" OR ", Ids.Select(id => string.Create(CultureInfo.InvariantCulture, $"{source} = ({id})"))) + ")",
        DatabaseFilterKind.Exclude => "((" + source + " = (2) OR " + source + " > (4))"
            + string.Concat(Ids.Select(id => string.Create(CultureInfo.InvariantCulture, $" AND {source} <> ({id})"))) + ")",
        _ => null,
    };
}

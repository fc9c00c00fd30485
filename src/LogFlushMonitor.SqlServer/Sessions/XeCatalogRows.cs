namespace LogFlushMonitor.SqlServer.Sessions;

/// <summary>
/// Rows of the XE catalog and session statements (Sql/XeSql.cs), as classes: Dapper.AOT 1.1.0 generates readers for
/// classes, not for the value tuples the session manager works with (it converts each row to one).
/// </summary>
internal static class XeCatalogRows
{
    /// <summary>A row of <see cref="Sql.XeSql.Objects"/>.</summary>
    internal sealed class Object
    {
        public string PackageName { get; set; } = "";

        public string ObjectName { get; set; } = "";

        public string ObjectType { get; set; } = "";
    }

    /// <summary>A row of <see cref="Sql.XeSql.EventColumns"/>.</summary>
    internal sealed class Column
    {
        public string PackageName { get; set; } = "";

        public string ObjectName { get; set; } = "";

        public string ColumnName { get; set; } = "";

        public string? TypeName { get; set; }

        public string? Description { get; set; }
    }

    /// <summary>A row of <see cref="Sql.XeSql.UserDatabases"/> and <see cref="Sql.XeSql.AllDatabases"/>.</summary>
    internal sealed class Database
    {
        public int DatabaseId { get; set; }

        public string Name { get; set; } = "";
    }

    /// <summary>The row of <see cref="Sql.XeSql.ServerSessionState"/> and <see cref="Sql.XeSql.DatabaseSessionState"/>.</summary>
    internal sealed class SessionState
    {
        public int Defined { get; set; }

        public int Running { get; set; }
    }
}

namespace LogFlushMonitor.SqlServer.Sql;

/// <summary>The statements of the <c>check</c> command, one place per statement.</summary>
internal static class CheckSql
{
    /// <summary>Version, edition and engine edition (5 = Azure SQL Database, 8 = Managed Instance).</summary>
    public const string ServerProperties = """
        SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS ProductVersion,
               CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS Edition,
               CAST(SERVERPROPERTY('EngineEdition') AS int) AS EngineEdition
        """;

    /// <summary>
    /// <c>check --capture</c>: the whole version line and the servicing level, besides <see cref="ServerProperties"/>.
    /// Neither SERVERPROPERTY('ServerName') nor 'MachineName' is asked: a capture holds no host name.
    /// </summary>
    public const string VersionDetails = """
        SELECT @@VERSION AS Version,
               CAST(SERVERPROPERTY('ProductLevel') AS nvarchar(128)) AS ProductLevel,
               CAST(SERVERPROPERTY('ProductUpdateLevel') AS nvarchar(128)) AS ProductUpdateLevel,
               CAST(SERVERPROPERTY('ProductMajorVersion') AS nvarchar(128)) AS ProductMajorVersion,
               CAST(SERVERPROPERTY('EngineEdition') AS int) AS EngineEdition
        """;

    /// <summary>Whether our own connection is encrypted (a session always sees its own row).</summary>
    public const string ConnectionEncryption = """
        SELECT encrypt_option AS EncryptOption FROM sys.dm_exec_connections WHERE session_id = @@SPID
        """;

    /// <summary>Whether the login holds a server permission (NULL when the name is unknown to this version). Parameter: <c>@permission</c>.</summary>
    public const string HasServerPermission = """
        SELECT HAS_PERMS_BY_NAME(NULL, NULL, @permission) AS HasPermission
        """;

    /// <summary>Whether the user holds a permission on the current database (Azure SQL Database). Parameter: <c>@permission</c>.</summary>
    public const string HasDatabasePermission = """
        SELECT HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', @permission) AS HasPermission
        """;
}

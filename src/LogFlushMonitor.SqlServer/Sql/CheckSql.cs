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

    /// <summary>
    /// <c>check --capture</c>: the databases the engine has files for that sys.databases does not list (the resource
    /// database; in a Linux container model_msdb and model_replicatedmaster, whose counters show them flushing), with what
    /// their files wrote. Their ids are undocumented, and whether they pass the session's <c>database_id &gt; 4</c> decides
    /// whether their events reach the stream (sqlserver.monitor.events.unlisted): the capture records them.
    /// </summary>
    public const string HiddenDatabases = """
        SELECT vfs.database_id AS DatabaseId, DB_NAME(vfs.database_id) AS Name, vfs.file_id AS FileId,
               vfs.num_of_writes AS NumWrites, vfs.num_of_bytes_written AS BytesWritten
        FROM sys.dm_io_virtual_file_stats(NULL, NULL) AS vfs
        WHERE NOT EXISTS (SELECT 1 FROM sys.databases AS d WHERE d.database_id = vfs.database_id)
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

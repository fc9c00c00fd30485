using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.Workload;

/// <summary>
/// The statements of <c>logflushmonitor workload</c>, one place per statement. Values are parameters; the database
/// name, which DDL cannot take as a parameter, enters only through <see cref="SqlIdentifier.Quote"/>.
/// </summary>
internal static class WorkloadSql
{
    /// <summary>The database-level extended property that marks a database as the workload's own (the only kind it alters or drops).</summary>
    public const string MarkerName = "LogFlushMonitorWorkload";

    /// <summary>The id of a database, NULL when there is none. Parameter: <c>@database</c>.</summary>
    public const string DatabaseId = """
        SELECT DB_ID(@database) AS DatabaseId
        """;

    /// <summary>Whether the current database carries the workload's marker. Parameter: <c>@name</c>.</summary>
    public const string HasMarker = """
        SELECT COUNT(*) FROM sys.extended_properties WHERE class = 0 AND name = @name
        """;

    /// <summary>Marks the current database as the workload's own. Parameters: <c>@name</c>, <c>@value</c>.</summary>
    public const string AddMarker = """
        EXEC sys.sp_addextendedproperty @name = @name, @value = @value
        """;

    /// <summary>
    /// The tables and sequences, in the workload's database (each only when missing). Rows are about 250 bytes, so a
    /// single-row commit fits a 512-byte log block and 20,000 rows fill about a hundred 60 KB blocks.
    /// </summary>
    public const string CreateObjects = """
        IF OBJECT_ID(N'dbo.WorkloadRows', N'U') IS NULL
            CREATE TABLE dbo.WorkloadRows (
                Id bigint IDENTITY(1, 1) NOT NULL CONSTRAINT PK_WorkloadRows PRIMARY KEY,
                Session int NOT NULL,
                CreatedUtc datetime2(3) NOT NULL CONSTRAINT DF_WorkloadRows_CreatedUtc DEFAULT SYSUTCDATETIME(),
                Payload char(200) NOT NULL);
        IF OBJECT_ID(N'dbo.WorkloadSequenceRows', N'U') IS NULL
            CREATE TABLE dbo.WorkloadSequenceRows (
                Id bigint IDENTITY(1, 1) NOT NULL CONSTRAINT PK_WorkloadSequenceRows PRIMARY KEY,
                SequenceValue bigint NOT NULL,
                Session int NOT NULL,
                Payload char(200) NOT NULL);
        IF OBJECT_ID(N'dbo.WorkloadSequenceNoCache', N'SO') IS NULL
            CREATE SEQUENCE dbo.WorkloadSequenceNoCache AS bigint START WITH 1 INCREMENT BY 1 NO CACHE;
        IF OBJECT_ID(N'dbo.WorkloadSequenceCache', N'SO') IS NULL
            CREATE SEQUENCE dbo.WorkloadSequenceCache AS bigint START WITH 1 INCREMENT BY 1 CACHE 1000;
        """;

    /// <summary>One row. Parameters: <c>@session</c>, <c>@payload</c>.</summary>
    public const string InsertRow = """
        INSERT dbo.WorkloadRows (Session, Payload) VALUES (@session, @payload)
        """;

    /// <summary>Many rows in one statement (a row source of millions: two catalog views crossed). Parameters: <c>@rows</c>, <c>@session</c>, <c>@payload</c>.</summary>
    public const string InsertRows = """
        INSERT dbo.WorkloadRows (Session, Payload)
        SELECT TOP (@rows) @session, @payload FROM sys.all_columns AS a CROSS JOIN sys.all_columns AS b
        """;

    /// <summary>One row numbered by the NO CACHE sequence. Parameters: <c>@session</c>, <c>@payload</c>.</summary>
    public const string InsertFromSequenceNoCache = """
        INSERT dbo.WorkloadSequenceRows (SequenceValue, Session, Payload) VALUES (NEXT VALUE FOR dbo.WorkloadSequenceNoCache, @session, @payload)
        """;

    /// <summary>One row numbered by the cached sequence. Parameters: <c>@session</c>, <c>@payload</c>.</summary>
    public const string InsertFromSequenceCache = """
        INSERT dbo.WorkloadSequenceRows (SequenceValue, Session, Payload) VALUES (NEXT VALUE FOR dbo.WorkloadSequenceCache, @session, @payload)
        """;

    /// <summary>Empties the workload's tables (minimally logged), so a workload running for days keeps its database small.</summary>
    public const string Truncate = """
        TRUNCATE TABLE dbo.WorkloadRows; TRUNCATE TABLE dbo.WorkloadSequenceRows;
        """;

    /// <summary>Creates the database (run in master).</summary>
    public static string CreateDatabase(string database) => $"CREATE DATABASE {Quote(database)}";

    /// <summary>
    /// SIMPLE recovery: the log truncates at checkpoints, so a workload cycling for days does not fill the disk. The
    /// flush shapes do not depend on the recovery model.
    /// </summary>
    public static string SetSimpleRecovery(string database) => $"ALTER DATABASE {Quote(database)} SET RECOVERY SIMPLE";

    /// <summary>DELAYED_DURABILITY = FORCED (delayed-durability) or DISABLED (every other scenario).</summary>
    public static string SetDelayedDurability(string database, bool forced) =>
        $"ALTER DATABASE {Quote(database)} SET DELAYED_DURABILITY = {(forced ? "FORCED" : "DISABLED")}";

    /// <summary>Drops the database, closing connections still in it (run in master).</summary>
    public static string DropDatabase(string database) =>
        $"ALTER DATABASE {Quote(database)} SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE {Quote(database)};";

    private static string Quote(string database) => SqlIdentifier.Quote(database, "--database");
}

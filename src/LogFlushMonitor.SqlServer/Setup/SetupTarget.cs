namespace LogFlushMonitor.SqlServer.Setup;

/// <summary>Which permission model a setup script is written for (docs/sqlserver.md, "Least privilege").</summary>
public enum SetupTarget
{
    /// <summary>SQL Server 2016 to 2019 and Azure SQL Managed Instance before the 2022 grants: VIEW SERVER STATE, ALTER ANY EVENT SESSION.</summary>
    SqlServer2019,

    /// <summary>SQL Server 2022 and later: VIEW SERVER PERFORMANCE STATE and the finer event-session grants.</summary>
    SqlServer2022,

    /// <summary>Azure SQL Database: database-level VIEW DATABASE STATE and ALTER ANY DATABASE EVENT SESSION.</summary>
    AzureSqlDatabase,
}

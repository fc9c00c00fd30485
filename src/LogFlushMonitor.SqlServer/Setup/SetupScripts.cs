using System.Text;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.SqlServer.Setup;

/// <summary>
/// The least-privilege scripts <c>setup-sql</c> prints (also saved as deploy/sql/*.sql): a login and user with only
/// what the monitor reads and the event session it manages; never sysadmin or CONTROL SERVER. The password is a
/// placeholder the operator must replace.
/// </summary>
public static class SetupScripts
{
    /// <summary>The password placeholder; a script that still holds it must not be run.</summary>
    public const string PasswordPlaceholder = "<replace-with-a-strong-password>";

    /// <summary>The default login name.</summary>
    public const string DefaultLogin = "logflushmonitor";

    /// <summary>The event-session grants of SQL Server 2022 the monitor needs (create, start, stop, drop, switch to the histogram target).</summary>
    public static readonly string[] EventSessionGrants2022 =
    [
        // Only what the monitor does: CREATE (its targets are part of the CREATE statement, never added later by ALTER,
        // so ALTER ANY EVENT SESSION ADD TARGET / DROP TARGET are not granted), start, stop, drop.
        "CREATE ANY EVENT SESSION", "ALTER ANY EVENT SESSION ENABLE", "ALTER ANY EVENT SESSION DISABLE", "DROP ANY EVENT SESSION",
    ];

    /// <summary>The file name under deploy/sql/ for a target.</summary>
    public static string FileName(SetupTarget target) => target switch
    {
        SetupTarget.SqlServer2019 => "setup-sqlserver-2019.sql",
        SetupTarget.SqlServer2022 => "setup-sqlserver-2022.sql",
        _ => "setup-azure-sql-database.sql",
    };

    /// <summary>Picks the target from the command-line flags: Azure wins; a version of 2022 or later uses the 2022 grants.</summary>
    public static SetupTarget TargetFor(bool azure, int version) =>
        azure ? SetupTarget.AzureSqlDatabase : version >= 2022 ? SetupTarget.SqlServer2022 : SetupTarget.SqlServer2019;

    /// <summary>The script for <paramref name="target"/>; <paramref name="login"/> is validated and bracket-quoted.</summary>
    public static string Build(SetupTarget target, string login = DefaultLogin)
    {
        var name = SqlIdentifier.Quote(login, "--login");
        var password = SqlIdentifier.QuoteLiteral(PasswordPlaceholder);
        var s = new StringBuilder();
        s.AppendLine("-- LogFlushMonitor: least-privilege login for " + target switch
        {
            SetupTarget.SqlServer2019 => "SQL Server 2016-2019.",
            SetupTarget.SqlServer2022 => "SQL Server 2022 and later.",
            _ => "Azure SQL Database.",
        });
        s.AppendLine($"-- Replace {PasswordPlaceholder} with a strong password before running. Never make the monitor sysadmin.");
        s.AppendLine("-- Check the result with: logflushmonitor check");
        s.AppendLine();
        if (target == SetupTarget.AzureSqlDatabase)
        {
            s.AppendLine("-- 1. In the master database of the logical server:");
            s.AppendLine($"CREATE LOGIN {name} WITH PASSWORD = {password};");
            s.AppendLine();
            s.AppendLine("-- 2. In EACH database to monitor (Azure SQL Database sessions and DMVs are per database):");
            s.AppendLine($"CREATE USER {name} FOR LOGIN {name};");
            s.AppendLine("-- Log counters, waits, open transactions' log by program, log file I/O and the log's space (sys.dm_db_log_stats;");
            s.AppendLine("-- sys.database_files needs nothing more) of this database, and its log-rate cap (sys.dm_user_db_resource_governance,");
            s.AppendLine("-- sys.dm_db_resource_stats; on Hyperscale sys.dm_hs_database_log_rate, whose VIEW DATABASE PERFORMANCE STATE this includes):");
            s.AppendLine($"GRANT VIEW DATABASE STATE TO {name};");
            // Microsoft, sys.dm_os_performance_counters, "Permissions": VIEW DATABASE STATE suffices on Premium only.
            s.AppendLine("-- On the Basic and Standard (DTU) tiers that is not enough for the counters: Microsoft's page of");
            s.AppendLine("-- sys.dm_os_performance_counters asks for the server admin (or the Microsoft Entra admin) there;");
            s.AppendLine("-- VIEW DATABASE STATE suffices only on Premium. Either monitor with that admin login, or accept no");
            s.AppendLine("-- counters (waits, file stats and events still work). `logflushmonitor check` runs the counter query");
            s.AppendLine("-- itself and says which it is.");
            s.AppendLine("-- Create, start, stop and drop the monitor's database-scoped event session:");
            s.AppendLine($"GRANT ALTER ANY DATABASE EVENT SESSION TO {name};");
            return s.ToString();
        }

        s.AppendLine("USE [master];");
        s.AppendLine($"CREATE LOGIN {name} WITH PASSWORD = {password}, CHECK_POLICY = ON;");
        s.AppendLine("-- The monitor connects to master; a user there makes that explicit (no database role is needed).");
        s.AppendLine($"CREATE USER {name} FOR LOGIN {name};");
        s.AppendLine();
        if (target == SetupTarget.SqlServer2019)
        {
            s.AppendLine("-- Performance counters, wait stats, file stats, sessions' drop counts, sessions waiting on WRITELOG, availability");
            s.AppendLine("-- replicas, open transactions' log by program (sys.dm_tran_database_transactions / sys.dm_tran_session_transactions),");
            s.AppendLine("-- the log's space (sys.dm_db_log_stats, 2016 SP2 and later; the free space of the log's volume, sys.dm_os_volume_stats)");
            s.AppendLine("-- and the live event stream:");
            s.AppendLine($"GRANT VIEW SERVER STATE TO {name};");
            s.AppendLine("-- Create, start, stop and drop the monitor's event session:");
            s.AppendLine($"GRANT ALTER ANY EVENT SESSION TO {name};");
        }
        else
        {
            s.AppendLine("-- Performance counters, wait stats, file stats, sessions' drop counts, sessions waiting on WRITELOG, availability");
            s.AppendLine("-- replicas, open transactions' log by program (sys.dm_tran_database_transactions / sys.dm_tran_session_transactions),");
            s.AppendLine("-- the log's space (sys.dm_db_log_stats; the free space of the log's volume, sys.dm_os_volume_stats)");
            s.AppendLine("-- and the live event stream; on Managed Instance also the instance's log-rate cap (sys.dm_instance_resource_governance)");
            s.AppendLine("-- (the narrower 2022 permission; VIEW SERVER STATE also works but shows more):");
            s.AppendLine($"GRANT VIEW SERVER PERFORMANCE STATE TO {name};");
            s.AppendLine("-- The monitor's event session, with the finer 2022 grants (ALTER ANY EVENT SESSION covers them all):");
            foreach (var grant in EventSessionGrants2022)
            {
                s.AppendLine($"GRANT {grant} TO {name};");
            }
        }

        s.AppendLine();
        s.AppendLine("-- Optional, recommended: average log write latency and the log's room (each log file's max size and");
        s.AppendLine("-- growth, so the headroom and the time until the log is full, which the SqlServerLogFullSoon page needs)");
        s.AppendLine("-- read sys.master_files, whose rows are visible only with VIEW ANY DEFINITION (or CREATE DATABASE /");
        s.AppendLine("-- ALTER ANY DATABASE). Without it the monitor reports everything else, SqlServerLogAlmostFull falls back");
        s.AppendLine("-- to the log's percentage, and `check` says so. It also shows the names and commit modes of");
        s.AppendLine("-- availability groups (sys.availability_groups / sys.availability_replicas show a login only what it");
        s.AppendLine("-- has a permission on): without it their replicas are still polled, named by the group's id.");
        s.AppendLine($"-- GRANT VIEW ANY DEFINITION TO {name};");
        s.AppendLine();
        s.AppendLine("-- Optional: log bytes by statement come from Query Store, read in each of the busiest databases through");
        s.AppendLine("-- three-part names, so the login must be able to enter them: a user in each, or CONNECT ANY DATABASE");
        s.AppendLine("-- (SQL Server 2014 and later; it reads no data). Without it those databases are counted as no_access");
        s.AppendLine("-- (sqlserver.monitor.query_store.databases) and `check` says so; everything else is unchanged.");
        s.AppendLine($"-- GRANT CONNECT ANY DATABASE TO {name};");
        return s.ToString();
    }
}

-- LogFlushMonitor: least-privilege login for Azure SQL Database.
-- Replace <replace-with-a-strong-password> with a strong password before running. Never make the monitor sysadmin.
-- Check the result with: logflushmonitor check

-- 1. In the master database of the logical server:
CREATE LOGIN [logflushmonitor] WITH PASSWORD = N'<replace-with-a-strong-password>';

-- 2. In EACH database to monitor (Azure SQL Database sessions and DMVs are per database):
CREATE USER [logflushmonitor] FOR LOGIN [logflushmonitor];
-- Log counters, waits, open transactions' log by program, log file I/O and the log's space (sys.dm_db_log_stats;
-- sys.database_files needs nothing more) of this database, and its log-rate cap (sys.dm_user_db_resource_governance,
-- sys.dm_db_resource_stats; on Hyperscale sys.dm_hs_database_log_rate, whose VIEW DATABASE PERFORMANCE STATE this includes):
GRANT VIEW DATABASE STATE TO [logflushmonitor];
-- On the Basic and Standard (DTU) tiers that is not enough for the counters: Microsoft's page of
-- sys.dm_os_performance_counters asks for the server admin (or the Microsoft Entra admin) there;
-- VIEW DATABASE STATE suffices only on Premium. Either monitor with that admin login, or accept no
-- counters (waits, file stats and events still work). `logflushmonitor check` runs the counter query
-- itself and says which it is.
-- Create, start, stop and drop the monitor's database-scoped event session:
GRANT ALTER ANY DATABASE EVENT SESSION TO [logflushmonitor];

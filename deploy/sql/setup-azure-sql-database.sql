-- LogFlushMonitor: least-privilege login for Azure SQL Database.
-- Replace <replace-with-a-strong-password> with a strong password before running. Never make the monitor sysadmin.
-- Check the result with: logflushmonitor check

-- 1. In the master database of the logical server:
CREATE LOGIN [logflushmonitor] WITH PASSWORD = N'<replace-with-a-strong-password>';

-- 2. In EACH database to monitor (Azure SQL Database sessions and DMVs are per database):
CREATE USER [logflushmonitor] FOR LOGIN [logflushmonitor];
-- Log counters, waits and log file I/O of this database:
GRANT VIEW DATABASE STATE TO [logflushmonitor];
-- Create, start, stop and drop the monitor's database-scoped event session:
GRANT ALTER ANY DATABASE EVENT SESSION TO [logflushmonitor];

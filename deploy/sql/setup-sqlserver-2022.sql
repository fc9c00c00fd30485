-- LogFlushMonitor: least-privilege login for SQL Server 2022 and later.
-- Replace <replace-with-a-strong-password> with a strong password before running. Never make the monitor sysadmin.
-- Check the result with: logflushmonitor check

USE [master];
CREATE LOGIN [logflushmonitor] WITH PASSWORD = N'<replace-with-a-strong-password>', CHECK_POLICY = ON;
-- The monitor connects to master; a user there makes that explicit (no database role is needed).
CREATE USER [logflushmonitor] FOR LOGIN [logflushmonitor];

-- Performance counters, wait stats, file stats, sessions' drop counts, sessions waiting on WRITELOG, availability
-- replicas, open transactions' log by program (sys.dm_tran_database_transactions / sys.dm_tran_session_transactions),
-- the log's space (sys.dm_db_log_stats; the free space of the log's volume, sys.dm_os_volume_stats)
-- and the live event stream; on Managed Instance also the instance's log-rate cap (sys.dm_instance_resource_governance)
-- (the narrower 2022 permission; VIEW SERVER STATE also works but shows more):
GRANT VIEW SERVER PERFORMANCE STATE TO [logflushmonitor];
-- The monitor's event session, with the finer 2022 grants (ALTER ANY EVENT SESSION covers them all):
GRANT CREATE ANY EVENT SESSION TO [logflushmonitor];
GRANT ALTER ANY EVENT SESSION ENABLE TO [logflushmonitor];
GRANT ALTER ANY EVENT SESSION DISABLE TO [logflushmonitor];
GRANT DROP ANY EVENT SESSION TO [logflushmonitor];

-- Optional, recommended: average log write latency and the log's room (each log file's max size and
-- growth, so the headroom and the time until the log is full, which the SqlServerLogFullSoon page needs)
-- read sys.master_files, whose rows are visible only with VIEW ANY DEFINITION (or CREATE DATABASE /
-- ALTER ANY DATABASE). Without it the monitor reports everything else, SqlServerLogAlmostFull falls back
-- to the log's percentage, and `check` says so. It also shows the names and commit modes of
-- availability groups (sys.availability_groups / sys.availability_replicas show a login only what it
-- has a permission on): without it their replicas are still polled, named by the group's id.
-- GRANT VIEW ANY DEFINITION TO [logflushmonitor];

-- Optional: log bytes by statement come from Query Store, read in each of the busiest databases through
-- three-part names, so the login must be able to enter them: a user in each, or CONNECT ANY DATABASE
-- (SQL Server 2014 and later; it reads no data). Without it those databases are counted as no_access
-- (sqlserver.monitor.query_store.databases) and `check` says so; everything else is unchanged.
-- GRANT CONNECT ANY DATABASE TO [logflushmonitor];

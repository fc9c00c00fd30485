-- LogFlushMonitor: least-privilege login for SQL Server 2016-2019.
-- Replace <replace-with-a-strong-password> with a strong password before running. Never make the monitor sysadmin.
-- Check the result with: logflushmonitor check

USE [master];
CREATE LOGIN [logflushmonitor] WITH PASSWORD = N'<replace-with-a-strong-password>', CHECK_POLICY = ON;
-- The monitor connects to master; a user there makes that explicit (no database role is needed).
CREATE USER [logflushmonitor] FOR LOGIN [logflushmonitor];

-- Performance counters, wait stats, file stats, sessions' drop counts, sessions waiting on WRITELOG, availability
-- replicas, open transactions' log by program (sys.dm_tran_database_transactions / sys.dm_tran_session_transactions),
-- the log's space (sys.dm_db_log_stats, 2016 SP2 and later; the free space of the log's volume, sys.dm_os_volume_stats)
-- and the live event stream:
GRANT VIEW SERVER STATE TO [logflushmonitor];
-- Create, start, stop and drop the monitor's event session:
GRANT ALTER ANY EVENT SESSION TO [logflushmonitor];

-- Optional, recommended: average log write latency and the log's room (each log file's max size and
-- growth, so the headroom and the time until the log is full, which the SqlServerLogFullSoon page needs)
-- read sys.master_files, whose rows are visible only with VIEW ANY DEFINITION (or CREATE DATABASE /
-- ALTER ANY DATABASE). Without it the monitor reports everything else, SqlServerLogAlmostFull falls back
-- to the log's percentage, and `check` says so. It also shows the names and commit modes of
-- availability groups (sys.availability_groups / sys.availability_replicas show a login only what it
-- has a permission on): without it their replicas are still polled, named by the group's id.
-- GRANT VIEW ANY DEFINITION TO [logflushmonitor];

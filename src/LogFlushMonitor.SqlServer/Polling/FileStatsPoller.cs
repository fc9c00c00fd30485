using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads sys.dm_io_virtual_file_stats for the log files (sys.master_files.type = 1) and keeps the watched databases'
/// (the lists are applied here, not sent: a list of any length works).
/// </summary>
internal sealed class FileStatsPoller(PollContext context, DatabaseFilter filter, ILogger logger, bool azure = false)
{
    private readonly NullCells _nulls = new(context, logger, "sys.dm_io_virtual_file_stats");
    private readonly HashSet<int> _namelessLogged = [];

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = azure
            ? await connection.QueryAsync<FileRow>(DmvSql.AzureLogFileStats, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<FileRow>(DmvSql.LogFileStats, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false);
        var now = context.UtcNow;
        foreach (var r in rows)
        {
            if (_nulls.Skip(("database_id", r.DatabaseId is null), ("file_id", r.FileId is null), ("num_of_writes", r.NumWrites is null),
                ("num_of_bytes_written", r.BytesWritten is null), ("io_stall_write_ms", r.IoStallWriteMs is null)))
            {
                continue;
            }

            // DB_NAME is NULL for a database dropped between the two catalog reads: nothing to attribute the row to, but
            // it is counted and said, not dropped silently.
            if (r.DatabaseName is null)
            {
                context.Sink.OnSourceLoss(context.Instance, LossKind.Malformed, 1);
                if (_namelessLogged.Count < 1000 && _namelessLogged.Add(r.DatabaseId!.Value))
                {
                    SqlServerLog.FileWithoutDatabaseName(logger, context.Instance, r.DatabaseId.Value);
                }

                continue;
            }

            if (!filter.Watches(r.DatabaseName))
            {
                continue;
            }

            context.Sink.OnFileStats(new FileStatsSample(context.Instance, now, r.DatabaseId!.Value, r.DatabaseName, r.FileId!.Value, r.NumWrites!.Value, r.BytesWritten!.Value, r.IoStallWriteMs!.Value));
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.FileStats));
    }

    /// <summary>One row as read: every cell nullable, so a NULL is seen and skipped (<see cref="NullCells"/>), not thrown.</summary>
    internal sealed class FileRow
    {
        public int? DatabaseId { get; set; }

        public string? DatabaseName { get; set; }

        public int? FileId { get; set; }

        public long? NumWrites { get; set; }

        public long? BytesWritten { get; set; }

        public long? IoStallWriteMs { get; set; }
    }
}

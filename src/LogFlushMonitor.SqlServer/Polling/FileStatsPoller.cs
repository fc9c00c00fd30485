using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>Reads sys.dm_io_virtual_file_stats for the log files (sys.master_files.type = 1) of watched databases.</summary>
internal sealed class FileStatsPoller(PollContext context, DatabaseFilter filter, bool azure = false)
{
    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = azure
            ? await connection.QueryAsync<FileRow>(DmvSql.AzureLogFileStats, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false)
            : await connection.QueryAsync<FileRow>(
                DmvSql.LogFileStats, new { includeAll = filter.IncludeAll, include = filter.Include, exclude = filter.Exclude, cancellationToken },
                commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false);
        var now = context.UtcNow;
        foreach (var r in rows)
        {
            // DB_NAME is NULL for a database dropped between the two catalog reads: nothing to attribute it to.
            if (r.DatabaseName is null || !filter.Watches(r.DatabaseName))
            {
                continue;
            }

            context.Sink.OnFileStats(new FileStatsSample(context.Instance, now, r.DatabaseId, r.DatabaseName, r.FileId, r.NumWrites, r.BytesWritten, r.IoStallWriteMs));
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.FileStats));
    }

    internal sealed class FileRow
    {
        public int DatabaseId { get; set; }

        public string? DatabaseName { get; set; }

        public int FileId { get; set; }

        public long NumWrites { get; set; }

        public long BytesWritten { get; set; }

        public long IoStallWriteMs { get; set; }
    }
}

using System.Data.Common;
using Dapper;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// Reads the log held by open transactions per database and program_name (<see cref="DmvSql.LogWriters"/>) and
/// delivers, per watched database, the <see cref="Top"/> applications using the most log and "other" for the rest
/// (sessions without a program name included), so the series stay bounded whatever the applications are called and
/// however many connect. The top is chosen again at each poll (the values are point readings, not cumulative).
/// </summary>
internal sealed class LogWritersPoller(PollContext context, DatabaseFilter filter)
{
    /// <summary>Applications per database besides "other".</summary>
    public const int Top = MetricAttributes.TopApplications;

    /// <summary>The application of everything not in the top.</summary>
    public const string Other = MetricAttributes.OtherApplication;

    public async Task PollAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var rows = await connection.QueryAsync<WriterRow>(DmvSql.LogWriters, cancellationToken, commandTimeout: context.CommandTimeoutSeconds).ConfigureAwait(false);
        var now = context.UtcNow;
        // DB_NAME is NULL for a database dropped since: nothing to attribute it to.
        foreach (var database in rows.Where(r => r.DatabaseName is not null && filter.Watches(r.DatabaseName)).GroupBy(r => r.DatabaseId))
        {
            var name = database.First().DatabaseName!;
            var ranked = database.Where(r => !string.IsNullOrEmpty(r.ProgramName) && r.ProgramName != Other)
                .OrderByDescending(r => r.LogBytesUsed).ThenByDescending(r => r.LogBytesReserved).ThenBy(r => r.ProgramName, StringComparer.Ordinal).ToList();
            foreach (var r in ranked.Take(Top))
            {
                context.Sink.OnLogWriters(new LogWritersSample(context.Instance, now, database.Key, name, r.ProgramName!, r.Transactions, r.LogBytesUsed, r.LogBytesReserved));
            }

            var rest = database.Except(ranked.Take(Top)).ToList();
            if (rest.Count > 0)
            {
                context.Sink.OnLogWriters(new LogWritersSample(context.Instance, now, database.Key, name, Other,
                    rest.Sum(r => r.Transactions), rest.Sum(r => r.LogBytesUsed), rest.Sum(r => r.LogBytesReserved)));
            }
        }

        context.Sink.OnPollCompleted(new PollCompleted(context.Instance, now, PollKind.LogWriters));
    }

    internal sealed class WriterRow
    {
        public int DatabaseId { get; set; }

        public string? DatabaseName { get; set; }

        public string? ProgramName { get; set; }

        public int Transactions { get; set; }

        public long LogBytesUsed { get; set; }

        public long LogBytesReserved { get; set; }
    }
}

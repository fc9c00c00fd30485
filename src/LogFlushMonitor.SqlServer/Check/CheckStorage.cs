using System.Globalization;
using LogFlushMonitor.Core.Advice;
using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using Microsoft.Data.SqlClient;
using Microsoft.Extensions.Logging.Abstractions;

namespace LogFlushMonitor.SqlServer.Check;

/// <summary>
/// <c>check</c>'s verdict on each watched database's log storage: the log file's average write latency since it was
/// opened (io_stall_write_ms over num_of_writes, as one poll of the log files reads them) against the storage class it
/// runs on: Azure's published write latency for the tier the log-rate governance names, else SQL Server's 10-15 ms
/// bottleneck line (docs/sqlserver.md, "A verdict against the storage you pay for"). Information, never a problem.
/// </summary>
internal static class CheckStorage
{
    /// <summary>One line per watched database with at least <see cref="CommitAdvice.MinWrites"/> log writes, worst first.</summary>
    public static async Task<IReadOnlyList<string>> VerdictsAsync(SqlServerDataSource source, SqlConnection connection, int commandTimeoutSeconds, CancellationToken ct)
    {
        var instance = source.Options;
        var sink = new Rows();
        var context = new PollContext(instance.Name, sink, TimeProvider.System, commandTimeoutSeconds, NullLogger.Instance,
            new SignalSettings(new DatabaseFilter(instance.IncludeDatabases, instance.ExcludeDatabases), Core.Aggregation.CounterSelection.Default, instance.SessionName));
        var server = ServerProfile.Of(instance.Azure, connection.ServerVersion);
        foreach (var signal in new Signal[] { SignalRegistry.LogRate, SignalRegistry.FileStats })
        {
            try
            {
                if (signal.NewPoller(context, server) is { } poller)
                {
                    await poller.PollAsync(connection, ct).ConfigureAwait(false);
                }
            }
            catch (Exception e) when (e is SqlException or StatementAnswerException && connection.State == System.Data.ConnectionState.Open)
            {
                // The probe of every poll (CheckProbes.PollsAsync) has said what failed and why: no verdict without its figures.
            }
        }

        var governance = sink.LogRate.Where(r => r.Scope != LogRateSignal.HyperscaleScope).ToList();
        var lines = new List<(double Latency, string Line)>();
        foreach (var database in sink.Files.GroupBy(f => f.DatabaseName, StringComparer.Ordinal))
        {
            long writes = database.Sum(f => f.NumWrites), stall = database.Sum(f => f.IoStallWriteMs);
            if (writes < CommitAdvice.MinWrites)
            {
                continue;
            }

            var own = governance.FirstOrDefault(g => g.DatabaseName == database.Key) is { Scope: not null } g1 ? g1 : governance.FirstOrDefault(g => g.Scope == LogRateSignal.InstanceScope);
            var snapshot = own.Scope is null ? null : new LogRateSnapshot(own.Scope, own.Tier, own.ServiceObjective, own.MaxLogRateBytesPerSecond, own.LogWritePercent, null, null, null);
            var latency = stall / 1000.0 / writes;
            var verdict = StorageVerdicts.Judge(latency, string.Create(CultureInfo.InvariantCulture, $"io_stall_write_ms / num_of_writes since the log file was opened, {writes:N0} writes"), StorageVerdicts.For(snapshot));
            lines.Add((latency, $"{database.Key}: {verdict.Text}"));
        }

        return [.. lines.OrderByDescending(l => l.Latency).Select(l => l.Line)];
    }

    /// <summary>Keeps the rows of the two polls.</summary>
    private sealed class Rows : IPollSink
    {
        public List<FileStatsRow> Files { get; } = [];

        public List<LogRateRow> LogRate { get; } = [];

        public void OnBatch(SignalBatch batch)
        {
            switch (batch)
            {
                case SignalBatch<FileStatsRow> files:
                    Files.AddRange(files.Rows.ToArray());
                    break;
                case SignalBatch<LogRateRow> rates:
                    LogRate.AddRange(rates.Rows.ToArray());
                    break;
            }
        }

        public void OnSourceLoss(string instance, LossKind kind, long count)
        {
        }
    }
}

using LogFlushMonitor.Core.Samples;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Polling;

/// <summary>
/// One statement's guard against NULL cells: the DMVs' columns are declared nullable or may be (a forged or damaged
/// answer, a proxy), and one NULL read into a number used to throw SqlNullValueException and stop every poll of the
/// instance. A row with a NULL where a value must be is skipped and counted as malformed (sqlserver.monitor.events.lost),
/// and each column is logged once for the poller's life, naming the statement.
/// </summary>
internal sealed class NullCells(PollContext context, ILogger logger, string statement)
{
    private readonly HashSet<string> _logged = new(StringComparer.Ordinal);

    /// <summary>True (the row is skipped, counted and its first NULL column logged once) when any cell is NULL.</summary>
    public bool Skip(params ReadOnlySpan<(string Column, bool IsNull)> cells)
    {
        foreach (var (column, isNull) in cells)
        {
            if (isNull)
            {
                context.Sink.OnSourceLoss(context.Instance, LossKind.Malformed, 1);
                if (_logged.Add(column))
                {
                    SqlServerLog.NullCell(logger, context.Instance, statement, column);
                }

                return true;
            }
        }

        return false;
    }
}

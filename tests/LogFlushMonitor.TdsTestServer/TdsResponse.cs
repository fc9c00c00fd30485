using System.Threading.Channels;

namespace LogFlushMonitor.TdsTestServer;

/// <summary>
/// A scripted answer, built from steps that run in order: result sets, row counts, errors, delays, cuts.
/// Delays and streaming result sets stop at an attention, and the client gets DONE with DONE_ATTN.
/// </summary>
public sealed class TdsResponse
{
    private readonly List<TdsStep> _steps = [];

    /// <summary>The steps, in order.</summary>
    public IReadOnlyList<TdsStep> Steps => _steps;

    /// <summary>An answer that only says "done" (a statement with no result, e.g. SET or DDL).</summary>
    public static TdsResponse Empty() => new();

    /// <summary>A single result set.</summary>
    public static TdsResponse Rows(IReadOnlyList<TdsColumn> columns, params object?[][] rows) => new TdsResponse().ResultSet(columns, rows);

    /// <summary>A single error (severity 16 unless given).</summary>
    public static TdsResponse Failure(int number, string message, byte state = 1, byte severity = 16) =>
        new TdsResponse().Error(number, message, state, severity);

    /// <summary>Adds a result set; <paramref name="rows"/> is enumerated when the response is sent.</summary>
    public TdsResponse ResultSet(IReadOnlyList<TdsColumn> columns, IEnumerable<object?[]> rows) => Add(new ResultSetStep(columns, rows));

    /// <summary>Adds a result set with the given rows.</summary>
    public TdsResponse ResultSet(IReadOnlyList<TdsColumn> columns, params object?[][] rows) => Add(new ResultSetStep(columns, rows));

    /// <summary>Adds a result set whose rows are sent one by one as the sequence yields them.</summary>
    public TdsResponse StreamingResultSet(IReadOnlyList<TdsColumn> columns, IAsyncEnumerable<object?[]> rows) =>
        Add(new StreamingResultSetStep(columns, _ => rows));

    /// <summary>Adds a result set that blocks until rows arrive on <paramref name="rows"/> and ends when it completes.</summary>
    public TdsResponse StreamingResultSet(IReadOnlyList<TdsColumn> columns, ChannelReader<object?[]> rows) =>
        Add(new StreamingResultSetStep(columns, StreamingResultSetStep.From(rows)));

    /// <summary>Adds a statement that affected <paramref name="count"/> rows (DONE with DONE_COUNT).</summary>
    public TdsResponse RowsAffected(long count) => Add(new RowsAffectedStep(count));

    /// <summary>Adds an ERROR token, e.g. 300 "VIEW SERVER STATE permission was denied ..." (severity 14).</summary>
    public TdsResponse Error(int number, string message, byte state = 1, byte severity = 16) =>
        Add(new MessageStep(true, number, state, severity, message));

    /// <summary>Adds an INFO token (severity 0..10), which SqlClient raises as InfoMessage.</summary>
    public TdsResponse Info(int number, string message, byte state = 1, byte severity = 0) =>
        Add(new MessageStep(false, number, state, severity, message));

    /// <summary>Waits before the next step; an attention ends the wait and the response.</summary>
    public TdsResponse Delay(TimeSpan delay) => Add(new DelayStep(delay));

    /// <summary>Runs code (e.g. awaits a signal) before the next step; its token fires on attention.</summary>
    public TdsResponse Then(Func<CancellationToken, Task> action) => Add(new ActionStep(action));

    /// <summary>
    /// Closes the socket after <paramref name="afterBytes"/> more bytes of the following steps reach the
    /// wire (earlier steps are sent in full first); 0 closes it at once. A cut can land mid-token, e.g.
    /// inside a PLP value.
    /// </summary>
    public TdsResponse Cut(int afterBytes = 0) => Add(new CutStep(afterBytes));

    private TdsResponse Add(TdsStep step)
    {
        _steps.Add(step);
        return this;
    }
}

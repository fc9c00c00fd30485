namespace LogFlushMonitor.TdsTestServer;

/// <summary>What a broken or hostile server does to the rows it answers with (<see cref="HostileRows"/>).</summary>
public enum HostileMode
{
    /// <summary>Every cell of every other row NULL, whatever the view allows.</summary>
    Null,

    /// <summary>Every number negative (its negation minus one, so 0 becomes -1), every time the first day of year 1.</summary>
    Negative,

    /// <summary>Every number the largest its type holds, every time the last moment of year 9999.</summary>
    Huge,

    /// <summary>Every row twice.</summary>
    Duplicated,
}

/// <summary>
/// A <see cref="TdsTestServer.RowRewriter"/> for a broken or hostile server: the rules still choose the answer, and this
/// makes it one no real server gives. Rows of statements whose text matches <c>exempt</c> stay as they are (e.g. the
/// login's own queries, when a test wants the connection to come up).
/// </summary>
public static class HostileRows
{
    /// <summary>A rewriter for <paramref name="mode"/>; statements containing any of <paramref name="exempt"/> are left alone.</summary>
    public static Func<TdsRequest, IReadOnlyList<TdsColumn>, IEnumerable<object?[]>, IEnumerable<object?[]>> Rewriter(HostileMode mode, params string[] exempt) =>
        (request, columns, rows) => exempt.Any(e => request.Text.Contains(e, StringComparison.OrdinalIgnoreCase)) ? rows : Rewrite(mode, columns, rows);

    /// <summary>The rows as <paramref name="mode"/> makes them.</summary>
    public static IEnumerable<object?[]> Rewrite(HostileMode mode, IReadOnlyList<TdsColumn> columns, IEnumerable<object?[]> rows)
    {
        var i = 0;
        foreach (var row in rows)
        {
            switch (mode)
            {
                case HostileMode.Duplicated:
                    yield return row;
                    yield return row;
                    break;
                case HostileMode.Null:
                    yield return i++ % 2 == 0 ? new object?[row.Length] : row;
                    break;
                default:
                    yield return [.. row.Select((cell, c) => Number(mode, columns[c].Type, cell))];
                    break;
            }
        }
    }

    private static object? Number(HostileMode mode, TdsType type, object? cell) => (mode, type, cell) switch
    {
        (_, _, null) => null,
        (HostileMode.Huge, TdsType.Int, _) => int.MaxValue,
        (HostileMode.Huge, TdsType.BigInt, _) => long.MaxValue,
        (HostileMode.Huge, TdsType.Float, _) => double.MaxValue,
        (HostileMode.Huge, TdsType.Decimal, _) => 9_999_999_999_999.999999m,
        (HostileMode.Huge, TdsType.DateTime2, _) => DateTime.MaxValue,
        (HostileMode.Negative, TdsType.DateTime2, _) => DateTime.MinValue,
        (HostileMode.Negative, TdsType.Int, int v) => -Math.Abs((long)v) - 1 is var n && n >= int.MinValue ? (int)n : int.MinValue,
        (HostileMode.Negative, TdsType.BigInt, long v) => v == long.MinValue ? long.MinValue : -Math.Abs(v) - 1,
        (HostileMode.Negative, TdsType.Float, double v) => -Math.Abs(v) - 1,
        (HostileMode.Negative, TdsType.Decimal, decimal v) => -Math.Abs(v) - 1,
        _ => cell,
    };
}

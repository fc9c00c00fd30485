namespace LogFlushMonitor.Workload;

/// <summary>
/// The transaction shapes <c>logflushmonitor workload</c> drives a real server through; each leaves its own mark on
/// the write-size histogram (docs/collection-modes.md), and the first three match the simulator's scenarios of the same name.
/// </summary>
public enum WorkloadScenario
{
    /// <summary>One INSERT per implicit transaction: a 512-byte flush per row.</summary>
    Autocommit,

    /// <summary>Explicit transactions of <see cref="WorkloadOptions.BatchSize"/> single-row INSERTs: one flush per commit.</summary>
    Batched,

    /// <summary>Set-based INSERTs inside transactions of many rows: the log buffer fills and flushes as 60 KB blocks.</summary>
    BigTransaction,

    /// <summary>Row-at-a-time commits with the database at DELAYED_DURABILITY = FORCED: commits return before their flush.</summary>
    DelayedDurability,

    /// <summary>Batched INSERTs taking their values from a SEQUENCE with NO CACHE: a flush per value.</summary>
    SequenceNoCache,

    /// <summary>The same with CACHE 1000: the sequence flushes once per 1,000 values.</summary>
    SequenceCache,
}

/// <summary>Command-line names of <see cref="WorkloadScenario"/> values and what each scenario does.</summary>
public static class WorkloadScenarios
{
    /// <summary>Rows per transaction of <see cref="WorkloadScenario.Batched"/> and the sequence scenarios unless told otherwise.</summary>
    public const int DefaultBatchSize = 100;

    /// <summary>Rows per transaction of <see cref="WorkloadScenario.BigTransaction"/> unless told otherwise (about 100 blocks of 60 KB).</summary>
    public const int DefaultBigTransactionRows = 20_000;

    /// <summary>Every scenario, in the order <c>all</c> runs them.</summary>
    public static IReadOnlyList<WorkloadScenario> All { get; } = Enum.GetValues<WorkloadScenario>();

    /// <summary>Every command-line name.</summary>
    public static IReadOnlyList<string> Names { get; } = [.. All.Select(NameOf)];

    /// <summary>The command-line name, e.g. <c>big-transaction</c>.</summary>
    public static string NameOf(WorkloadScenario scenario) => scenario switch
    {
        WorkloadScenario.Autocommit => "autocommit",
        WorkloadScenario.Batched => "batched",
        WorkloadScenario.BigTransaction => "big-transaction",
        WorkloadScenario.DelayedDurability => "delayed-durability",
        WorkloadScenario.SequenceNoCache => "sequence-nocache",
        WorkloadScenario.SequenceCache => "sequence-cache",
        _ => throw new ArgumentOutOfRangeException(nameof(scenario), scenario, null),
    };

    /// <summary>Parses a command-line name (case-insensitive).</summary>
    public static bool TryParse(string? name, out WorkloadScenario scenario)
    {
        foreach (var s in All)
        {
            if (string.Equals(NameOf(s), name?.Trim(), StringComparison.OrdinalIgnoreCase))
            {
                scenario = s;
                return true;
            }
        }

        scenario = default;
        return false;
    }

    /// <summary>Whether the scenario commits several rows at a time (and so reads <see cref="WorkloadOptions.BatchSize"/>).</summary>
    public static bool UsesBatchSize(WorkloadScenario scenario) =>
        scenario is WorkloadScenario.Batched or WorkloadScenario.BigTransaction or WorkloadScenario.SequenceNoCache or WorkloadScenario.SequenceCache;

    /// <summary>Rows per transaction: 1 for row-at-a-time scenarios; 0 means one transaction committed when the scenario ends.</summary>
    public static int RowsPerTransaction(WorkloadScenario scenario, int? batchSize) => scenario switch
    {
        WorkloadScenario.Autocommit or WorkloadScenario.DelayedDurability => 1,
        WorkloadScenario.BigTransaction => batchSize ?? DefaultBigTransactionRows,
        _ => batchSize ?? DefaultBatchSize,
    };
}

namespace LogFlushMonitor.Analysis;

/// <summary>
/// How an analysis ended. The programs that run it turn this into their exit code (the executable's ExitCodes,
/// documented in docs/operations.md and docs/analyze.md): the library says what happened, not how a process ends.
/// </summary>
internal enum AnalyzeOutcome
{
    /// <summary>Every input was read and at least one held the events analyze looks for.</summary>
    Analysed,

    /// <summary>A usage problem (an unknown format, a bad --threads, an input that names nothing): nothing was read.</summary>
    InvalidArguments,

    /// <summary>Stopped before a report (cancelled).</summary>
    Failed,

    /// <summary>The inputs hold none of the events analyze looks for.</summary>
    NoRelevantEvents,

    /// <summary>At least one input is corrupt or unreadable (file and offset are printed); the others were analysed.</summary>
    CorruptInput,
}

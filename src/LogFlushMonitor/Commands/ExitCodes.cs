using LogFlushMonitor.Analysis;

namespace LogFlushMonitor.Commands;

/// <summary>
/// Process exit codes, documented in docs/operations.md. They belong to the programs: this file is compiled into
/// <c>logflushmonitor</c> and into the stand-alone <c>logflushmonitor-analyze</c> (which therefore exits with the same
/// codes); the libraries report outcomes (<see cref="AnalyzeOutcome"/>) and never choose a number.
/// </summary>
internal static class ExitCodes
{
    /// <summary>Success, or a normal stop of <c>run</c> (SIGTERM, Ctrl+C).</summary>
    public const int Ok = 0;

    /// <summary>An unexpected failure; the log says what.</summary>
    public const int Failure = 1;

    /// <summary>Invalid command line or configuration (nothing started); the message names the setting.</summary>
    public const int Configuration = 2;

    /// <summary>analyze: the input holds none of the events it looks for.</summary>
    public const int NoRelevantEvents = 3;

    /// <summary>analyze: at least one input is corrupt or unreadable (file and offset are printed); the others were analysed.</summary>
    public const int CorruptInput = 4;

    /// <summary>The exit code of an analysis (analyze and report) that ended with <paramref name="outcome"/>.</summary>
    public static int Of(AnalyzeOutcome outcome) => outcome switch
    {
        AnalyzeOutcome.Analysed => Ok,
        AnalyzeOutcome.InvalidArguments => Configuration,
        AnalyzeOutcome.NoRelevantEvents => NoRelevantEvents,
        AnalyzeOutcome.CorruptInput => CorruptInput,
        _ => Failure,
    };
}

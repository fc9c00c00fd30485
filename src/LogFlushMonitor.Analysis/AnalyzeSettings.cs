namespace LogFlushMonitor.Analysis;

/// <summary>How the report is written to stdout.</summary>
internal enum ReportFormat
{
    /// <summary>For a person: histogram bars, figures and advice (Spectre.Console).</summary>
    Text,

    /// <summary>For scripts: one JSON document, schema in docs/analyze.md.</summary>
    Json,
}

/// <summary>When progress lines go to stderr.</summary>
internal enum ProgressMode
{
    /// <summary>When the input is larger than <see cref="AnalyzeSettings.ProgressThresholdBytes"/> or stderr is a terminal.</summary>
    Auto,

    /// <summary>Always.</summary>
    Always,

    /// <summary>Never.</summary>
    Never,
}

/// <summary>What one <c>analyze</c> run reads and how it reports.</summary>
internal sealed record AnalyzeSettings
{
    /// <summary>Total input size above which <see cref="ProgressMode.Auto"/> reports progress (64 MiB).</summary>
    public const long ProgressThresholdBytes = 64L * 1024 * 1024;

    /// <summary>Files, folders or globs, in the order given.</summary>
    public required IReadOnlyList<string> Inputs { get; init; }

    /// <summary>Output format.</summary>
    public ReportFormat Format { get; init; } = ReportFormat.Text;

    /// <summary>Progress reporting.</summary>
    public ProgressMode Progress { get; init; } = ProgressMode.Auto;

    /// <summary>Whether stderr is a terminal (decides <see cref="ProgressMode.Auto"/>).</summary>
    public bool StdErrIsTerminal { get; init; }

    /// <summary>
    /// Threads decoding .xel files (<c>--threads</c>): default every core; 1 reads on the calling thread. The report is
    /// the same for any value.
    /// </summary>
    public int Threads { get; init; } = Environment.ProcessorCount;

    /// <summary>The command name progress lines start with.</summary>
    public string ProgressLabel { get; init; } = "analyze";

    /// <summary>Clock for elapsed time and progress pacing.</summary>
    public TimeProvider Time { get; init; } = TimeProvider.System;

    /// <summary>The part of the inputs' time that counts (compare's windows); everything by default.</summary>
    public TimeWindow Window { get; init; } = TimeWindow.All;

    /// <summary>Sees every polled signal's batch a recording holds (compare reads its counters through it); none by default.</summary>
    public Action<Core.Signals.SignalBatch>? OnSignal { get; init; }
}

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>Limits and leniency of <see cref="XelReader"/> and <see cref="XelParallelReader"/>.</summary>
public sealed record XelReaderOptions
{
    /// <summary>Largest buffer accepted (real buffers were at most 275 KB; live buffers can be several MB).</summary>
    public int MaxBufferSize { get; init; } = 64 * 1024 * 1024;

    /// <summary>
    /// In <see cref="XelDamageHandling.Throw"/> mode: when true, a file that ends inside a buffer ends quietly (a
    /// file still being written); when false (default) that raises <see cref="XelFormatException"/>. In
    /// <see cref="XelDamageHandling.SkipAndReport"/> mode an incomplete last buffer always ends the file
    /// normally and is described in <see cref="XelFileResult.Tail"/>.
    /// </summary>
    public bool AllowTruncatedTail { get; init; }

    /// <summary>What to do with bytes that cannot be read (default: raise at the first problem).</summary>
    public XelDamageHandling Damage { get; init; } = XelDamageHandling.Throw;

    /// <summary>
    /// Count events missing by <c>package0.event_sequence</c> gaps per file (<see cref="XelFileResult.EventsLost"/>).
    /// Costs a scan of each event's action list.
    /// </summary>
    public bool TrackEventSequence { get; init; }

    /// <summary>
    /// True (default): the files read together are one session's rollover set, so the numbering continues
    /// from file to file and a gap at a file boundary counts (for the later file). False: each file is numbered
    /// on its own.
    /// </summary>
    public bool SequenceAcrossFiles { get; init; } = true;

    /// <summary>Encoding of ansi_string values in <see cref="XelReader.ReadData"/> (default Latin-1).</summary>
    public System.Text.Encoding? AnsiEncoding { get; init; }
}

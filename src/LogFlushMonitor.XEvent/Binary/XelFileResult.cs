namespace LogFlushMonitor.XEvent.Binary;

/// <summary>How reading one file ended.</summary>
public enum XelFileStatus
{
    /// <summary>Every buffer was read. The file may end with zeros or an incomplete last buffer (a file being written): see <see cref="XelFileResult.Tail"/>.</summary>
    Ok,

    /// <summary>Some bytes could not be read and were skipped (see <see cref="XelFileResult.Damage"/>); everything else was read.</summary>
    Damaged,

    /// <summary>Not a .xel file or its file header is malformed: nothing was read.</summary>
    Corrupt,

    /// <summary>The file header declares a format version this reader does not support.</summary>
    UnsupportedVersion,

    /// <summary>The file could not be opened or read (missing, permissions, I/O error, not a regular file).</summary>
    Unreadable,
}

/// <summary>How a file's data ended before its last byte, when it did not end exactly after a buffer.</summary>
public enum XelTailKind
{
    /// <summary>The file ends exactly after its last buffer.</summary>
    None,

    /// <summary>A zeroed buffer header followed by zeros only (preallocated space): nothing is lost.</summary>
    Zeros,

    /// <summary>
    /// The last buffer is cut by the end of the file: a file still being written, or copied while it was. Its
    /// events are not read (the records of a half-written buffer cannot be trusted).
    /// </summary>
    IncompleteBuffer,
}

/// <summary>Bytes a reader skipped because it could not read them: <c>[Offset, Offset + Length)</c> of the file.</summary>
/// <param name="Offset">Where the skipped bytes start (a buffer or record start).</param>
/// <param name="Length">How many bytes were skipped (0 when the damage was repaired, e.g. a buffer length that overlapped the next buffer).</param>
/// <param name="Problem">What was wrong, for a person.</param>
/// <param name="ProblemOffset">The offset of the field or byte found wrong.</param>
public sealed record XelDamage(long Offset, long Length, string Problem, long ProblemOffset);

/// <summary>
/// What reading one file gave: events, skipped bytes, how it ended, and lost events by event_sequence. The
/// sequential <see cref="XelReader"/> (in <see cref="XelDamageHandling.SkipAndReport"/> mode) and
/// <see cref="XelParallelReader"/> produce equal results for equal input.
/// </summary>
public sealed class XelFileResult
{
    private readonly List<XelDamage> _damage = [];

    internal XelFileResult(int index, string? path)
    {
        Index = index;
        Path = path;
    }

    /// <summary>Position of the file in the list the reader was given.</summary>
    public int Index { get; }

    /// <summary>The file's path (or stream name).</summary>
    public string? Path { get; }

    /// <summary>Bytes of the file the reader went through (its length when it was read to the end).</summary>
    public long Bytes { get; internal set; }

    /// <summary>Events decoded and delivered from this file.</summary>
    public long Events { get; internal set; }

    /// <summary>Skipped byte ranges, in file order.</summary>
    public IReadOnlyList<XelDamage> Damage => _damage;

    /// <summary>Bytes skipped in all.</summary>
    public long DamagedBytes => _damage.Sum(d => d.Length);

    /// <summary>How the data ended (see <see cref="XelTailKind"/>).</summary>
    public XelTailKind Tail { get; internal set; }

    /// <summary>Where the zeros or the incomplete buffer start (when <see cref="Tail"/> is not None).</summary>
    public long TailOffset { get; internal set; }

    /// <summary>Bytes of zeros or of the incomplete buffer at the end.</summary>
    public long TailBytes { get; internal set; }

    /// <summary>The error that stopped reading the file (a <see cref="XelFormatException"/> with offset, or an I/O error); null when read to the end.</summary>
    public Exception? Error { get; internal set; }

    /// <summary>Events missing by event_sequence gaps attributed to this file (when the reader tracks them; 0 otherwise).</summary>
    public long EventsLost { get; internal set; }

    /// <summary>Events of this file that carried an event_sequence number (when tracked).</summary>
    public long SequencedEvents { get; internal set; }

    /// <summary>The outcome, in one word.</summary>
    public XelFileStatus Status => Error switch
    {
        XelUnsupportedVersionException => XelFileStatus.UnsupportedVersion,
        XelFormatException => XelFileStatus.Corrupt,
        not null => XelFileStatus.Unreadable,
        null when _damage.Count > 0 => XelFileStatus.Damaged,
        _ => XelFileStatus.Ok,
    };

    internal void AddDamage(XelDamage damage) => _damage.Add(damage);

    /// <summary>Stable sort by offset (a parallel reader finds damage out of order).</summary>
    internal void SortDamage()
    {
        var sorted = _damage.OrderBy(d => d.Offset).ToList();
        _damage.Clear();
        _damage.AddRange(sorted);
    }

    /// <inheritdoc />
    public override string ToString() =>
        $"{Path}: {Status}, {Events} events, {_damage.Count} damaged ranges ({DamagedBytes} bytes), tail {Tail}, lost {EventsLost}{(Error is null ? "" : ", " + Error.Message)}";
}

/// <summary>What a reader does with bytes it cannot read.</summary>
public enum XelDamageHandling
{
    /// <summary>
    /// Raise <see cref="XelFormatException"/> at the first problem, naming file and offset (a zeroed buffer
    /// header followed by more data included). A file cut inside a buffer raises too, unless
    /// <see cref="XelReaderOptions.AllowTruncatedTail"/>.
    /// </summary>
    Throw,

    /// <summary>
    /// Skip what cannot be read, record it in <see cref="XelFileResult.Damage"/>, and go on at the next readable
    /// buffer; a file-level problem (not a .xel file, unreadable) ends that file only. An incomplete last buffer
    /// ends the file normally (<see cref="XelTailKind.IncompleteBuffer"/>).
    /// </summary>
    SkipAndReport,
}

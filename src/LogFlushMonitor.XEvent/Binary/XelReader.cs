using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// Streams the events of one .xel stream or of a set of files in order, on the calling thread. Memory stays
/// flat: one pooled window, grown to the largest XE buffer seen. Pull with <see cref="Read"/> and
/// <see cref="Current"/> (like Utf8JsonReader), or push with <see cref="ReadAll{THandler}"/>. Each file gets
/// fresh metadata. With <see cref="XelDamageHandling.SkipAndReport"/> each file's outcome (damage, tail,
/// errors, event_sequence losses) is in <see cref="Files"/>; see <see cref="XelParallelReader"/> for the
/// same on every core.
/// </summary>
public sealed class XelReader : IDisposable
{
    private readonly IEnumerator<(Func<XelByteSource> Open, string? Name)> _sources;
    private readonly XelReaderOptions _options;
    private readonly XEventBufferDecoder _decoder = new();
    private readonly List<XelFileResult> _files = [];
    private XelByteSource? _source;
    private XelFramer? _framer;
    private XelFileResult? _file;
    private XelFrame _frame;
    private bool _inFrame;
    private int _pos;
    private int _end;
    private int _currentPos;
    private bool _hasCurrent;
    private bool _disposed;
    private int _sequenceGeneration = -1;
    private TrackingObserver _sequence;
    private long _eventsAtFileStart;
    private long _missingAtFileStart;
    private long _sequencedAtFileStart;
    private long _finishedSourcesBytes;

    /// <summary>Reads one stream holding a whole .xel file (header first).</summary>
    public XelReader(Stream stream, string? name = null, XelReaderOptions? options = null, bool leaveOpen = false)
        : this([(() => new StreamByteSource(stream, leaveOpen), name)], options)
    {
        ArgumentNullException.ThrowIfNull(stream);
    }

    private XelReader(IEnumerable<(Func<XelByteSource>, string?)> sources, XelReaderOptions? options)
    {
        _sources = sources.GetEnumerator();
        _options = options ?? new XelReaderOptions();
    }

    /// <summary>Opens a file, a folder or a glob (see <see cref="XelFiles.Expand"/>), files in rollover order.</summary>
    public static XelReader Open(string pathOrPattern, XelReaderOptions? options = null) =>
        Open(XelFiles.Expand(pathOrPattern), options);

    /// <summary>Opens files in the given order, each with its own header, metadata and clock.</summary>
    public static XelReader Open(IEnumerable<string> paths, XelReaderOptions? options = null) =>
        new(paths.Select(p => ((Func<XelByteSource>)(() => new StreamByteSource(XelFiles.OpenRead(p), leaveOpen: false)), (string?)p)), options);

    /// <summary>Metadata of the current file.</summary>
    public XEventMetadata Metadata => _decoder.Metadata;

    /// <summary>Changes whenever metadata is merged or reset (pull readers compare it to re-resolve handles).</summary>
    public int MetadataGeneration { get; private set; }

    /// <summary>Bytes consumed from the current source.</summary>
    public long Position => _source?.Consumed ?? 0;

    /// <summary>Bytes consumed from all sources so far (for progress reporting).</summary>
    public long TotalBytesRead => _finishedSourcesBytes + Position;

    /// <summary>Sources opened so far.</summary>
    public int SourcesOpened { get; private set; }

    /// <summary>Events read so far (over all sources).</summary>
    public long EventCount => _decoder.EventCount;

    /// <summary>
    /// One result per source opened so far, in order (the last one is still being read until the reader reaches
    /// its end). Damage and file-level errors appear here in <see cref="XelDamageHandling.SkipAndReport"/> mode;
    /// in Throw mode they are raised instead.
    /// </summary>
    public IReadOnlyList<XelFileResult> Files => _files;

    /// <summary>The current event; valid until the next <see cref="Read"/>.</summary>
    public XEventRecord Current => _hasCurrent
        ? _decoder.RecordAt(_source!.Get(_frame.Offset, _frame.Length), _currentPos, _frame.Offset)
        : throw new InvalidOperationException("Call Read() first, and only use Current while it returned true.");

    /// <summary>Advances to the next event; false at the end of the last source.</summary>
    public bool Read()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        while (true)
        {
            if (_inFrame && _pos < _end)
            {
                var span = _source!.Get(_frame.Offset, _frame.Length);
                var start = _pos;
                var handler = default(NullHandler);
                var n = Decode(span, 1, ref handler, out var failure);
                if (n == 1)
                {
                    _currentPos = start;
                    _hasCurrent = true;
                    return true;
                }

                OnRecordFailure(failure);
            }

            _hasCurrent = false;
            if (!LoadNextFrame(CancellationToken.None))
            {
                return false;
            }
        }
    }

    /// <summary>
    /// Pushes every remaining event to a handler. <see cref="IXEventHandler.OnMetadataChanged"/> is called
    /// before the first event after each metadata change. Cancellation is checked between buffers (and while
    /// scanning damaged regions); it raises <see cref="OperationCanceledException"/>.
    /// </summary>
    public void ReadAll<THandler>(ref THandler handler, CancellationToken cancellationToken = default)
        where THandler : IXEventHandler
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        var seen = -1;
        _hasCurrent = false;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (_inFrame && _pos < _end)
            {
                if (seen != MetadataGeneration)
                {
                    seen = MetadataGeneration;
                    handler.OnMetadataChanged(Metadata);
                }

                var span = _source!.Get(_frame.Offset, _frame.Length);
                Decode(span, int.MaxValue, ref handler, out var failure);
                OnRecordFailure(failure);
            }

            if (!LoadNextFrame(cancellationToken))
            {
                return;
            }
        }
    }

    /// <summary>Materialises every remaining event (allocating; for tools, not hot paths).</summary>
    public IEnumerable<XEventData> ReadData()
    {
        while (Read())
        {
            yield return Current.ToData(Metadata, _options.AnsiEncoding);
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _source?.Dispose();
        _source = null;
        _sources.Dispose();
    }

    private int Decode<THandler>(ReadOnlySpan<byte> span, int max, ref THandler handler, out RecordFailure failure)
        where THandler : IXEventHandler
    {
        if (_options.TrackEventSequence)
        {
            if (_sequenceGeneration != MetadataGeneration)
            {
                _sequenceGeneration = MetadataGeneration;
                _sequence.Action = Metadata.GetActionHandle(EventSequence.ActionName);
            }

            var count = _decoder.DecodeRecords(span, ref _pos, _end, _frame.Offset, max, ref handler, ref _sequence, out failure);
            if (_sequence.Damage is { Count: > 0 } damaged)
            {
                foreach (var d in damaged)
                {
                    if (_options.Damage == XelDamageHandling.Throw)
                    {
                        damaged.Clear();
                        throw new XelFormatException(d.Problem, _file?.Path, d.ProblemOffset);
                    }

                    _file!.AddDamage(d);
                }

                damaged.Clear();
            }

            return count;
        }

        var none = default(NoRecordObserver);
        return _decoder.DecodeRecords(span, ref _pos, _end, _frame.Offset, max, ref handler, ref none, out failure);
    }

    private void OnRecordFailure(in RecordFailure failure)
    {
        if (failure.Problem is null)
        {
            return;
        }

        if (_options.Damage == XelDamageHandling.Throw)
        {
            throw new XelFormatException(failure.Problem, _file?.Path, failure.Offset);
        }

        // The records before the bad one were delivered; the rest of this buffer's data cannot be framed.
        var start = _frame.Offset + failure.RecordStart;
        _file!.AddDamage(new XelDamage(start, _end - failure.RecordStart, failure.Problem + "; the rest of the buffer's events were skipped", failure.Offset));
        _pos = _end;
    }

    private bool LoadNextFrame(CancellationToken cancellationToken)
    {
        _inFrame = false;
        while (true)
        {
            if (_framer is null)
            {
                if (!OpenNextSource())
                {
                    return false;
                }

                if (_framer is null)
                {
                    continue; // the source failed to open; its result says why
                }
            }

            XelFrame frame;
            try
            {
                if (!_framer!.Next(out frame, cancellationToken))
                {
                    FinishSource(null);
                    continue;
                }

                if (frame.Kind == XEventBufferKind.Metadata)
                {
                    var span = _source!.Get(frame.Offset, frame.Length);
                    try
                    {
                        MetadataParser.Merge(Metadata, span, frame.DataStart, frame.DataEnd, frame.Offset, _file!.Path);
                        MetadataGeneration++;
                    }
                    catch (XelFormatException e)
                    {
                        _framer.SkipBuffer(frame, e);
                    }

                    continue;
                }
            }
            catch (Exception e) when (_options.Damage == XelDamageHandling.SkipAndReport && e is IOException or UnauthorizedAccessException)
            {
                FinishSource(e);
                continue;
            }

            _frame = frame;
            _pos = frame.DataStart;
            _end = frame.DataEnd;
            _inFrame = true;
            _decoder.MeasureClock(_source!.Get(frame.Offset, frame.Length), frame.DataStart, frame.DataEnd);
            return true;
        }
    }

    private bool OpenNextSource()
    {
        if (!_sources.MoveNext())
        {
            return false;
        }

        var (open, name) = _sources.Current;
        var file = new XelFileResult(_files.Count, name);
        _files.Add(file);
        _file = file;
        SourcesOpened++;
        _decoder.SourceName = name;
        _decoder.SourceIndex = file.Index;
        _decoder.Reset();
        MetadataGeneration++;
        _eventsAtFileStart = _decoder.EventCount;
        if (!_options.SequenceAcrossFiles)
        {
            _sequence.Tracker.Reset();
        }

        _missingAtFileStart = _sequence.Tracker.Missing;
        _sequencedAtFileStart = _sequence.Tracker.Observed;
        try
        {
            _source = open();
            _framer = new XelFramer(_source, _options, file);
            _framer.ReadFileHeader();
        }
        catch (Exception e) when (_options.Damage == XelDamageHandling.SkipAndReport
            && e is XelFormatException or IOException or UnauthorizedAccessException)
        {
            FinishSource(e);
        }

        return true;
    }

    private void FinishSource(Exception? error)
    {
        var file = _file!;
        file.Error ??= error;
        file.Events = _decoder.EventCount - _eventsAtFileStart;
        file.EventsLost = Math.Max(0, _sequence.Tracker.Missing - _missingAtFileStart);
        file.SequencedEvents = _sequence.Tracker.Observed - _sequencedAtFileStart;
        file.Bytes = _source?.Consumed ?? 0;
        _finishedSourcesBytes += file.Bytes;
        _source?.Dispose();
        _source = null;
        _framer = null;
        _inFrame = false;
    }

    private struct NullHandler : IXEventHandler
    {
        public readonly void OnMetadataChanged(XEventMetadata metadata)
        {
        }

        public readonly void OnEvent(in XEventRecord record)
        {
        }
    }
}

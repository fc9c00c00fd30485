using System.Buffers;
using System.Buffers.Binary;

namespace LogFlushMonitor.XEvent;

/// <summary>
/// Streams the events of one .xel stream or of a set of files in order. Memory stays flat: one pooled
/// buffer, grown to the largest XE buffer seen. Pull with <see cref="Read"/> and <see cref="Current"/>
/// (like Utf8JsonReader), or push with <see cref="ReadAll{THandler}"/>. Each file gets fresh metadata.
/// </summary>
public sealed class XelReader : IDisposable
{
    private readonly IEnumerator<(Func<Stream> Open, string? Name)> _sources;
    private readonly XelReaderOptions _options;
    private readonly XEventBufferDecoder _decoder = new();
    private readonly bool _leaveOpen;
    private Stream? _stream;
    private byte[] _buffer;
    private int _bufferLength;
    private long _bufferOffset;
    private long _offset;
    private long _finishedSourcesBytes;
    private int _pos;
    private int _end;
    private RecordLayout _current;
    private bool _hasCurrent;
    private bool _disposed;

    /// <summary>Reads one stream holding a whole .xel file (header first).</summary>
    public XelReader(Stream stream, string? name = null, XelReaderOptions? options = null, bool leaveOpen = false)
        : this([(() => stream, name)], options, leaveOpen)
    {
        ArgumentNullException.ThrowIfNull(stream);
    }

    private XelReader(IEnumerable<(Func<Stream>, string?)> sources, XelReaderOptions? options, bool leaveOpen)
    {
        _sources = sources.GetEnumerator();
        _options = options ?? new XelReaderOptions();
        _leaveOpen = leaveOpen;
        _buffer = ArrayPool<byte>.Shared.Rent(64 * 1024);
    }

    /// <summary>Opens a file, a folder or a glob (see <see cref="XelFiles.Expand"/>), files in rollover order.</summary>
    public static XelReader Open(string pathOrPattern, XelReaderOptions? options = null) =>
        Open(XelFiles.Expand(pathOrPattern), options);

    /// <summary>Opens files in the given order, each with its own header, metadata and clock.</summary>
    public static XelReader Open(IEnumerable<string> paths, XelReaderOptions? options = null) =>
        new(paths.Select(p => ((Func<Stream>)(() => OpenFile(p)), (string?)p)), options, leaveOpen: false);

    /// <summary>Metadata of the current file.</summary>
    public XEventMetadata Metadata => _decoder.Metadata;

    /// <summary>Changes whenever metadata is merged or reset (pull readers compare it to re-resolve handles).</summary>
    public int MetadataGeneration { get; private set; }

    /// <summary>Name of the file being read.</summary>
    public string? CurrentSource => _decoder.SourceName;

    /// <summary>Bytes consumed from the current source.</summary>
    public long Position => _offset;

    /// <summary>Bytes consumed from all sources so far (for progress reporting).</summary>
    public long TotalBytesRead => _finishedSourcesBytes + _offset;

    /// <summary>Sources opened so far.</summary>
    public int SourcesOpened { get; private set; }

    /// <summary>Events read so far (over all sources).</summary>
    public long EventCount => _decoder.EventCount;

    /// <summary>The current event; valid until the next <see cref="Read"/>.</summary>
    public XEventRecord Current => _hasCurrent
        ? _decoder.CreateRecord(_buffer.AsSpan(0, _bufferLength), _current, _bufferOffset)
        : throw new InvalidOperationException("Call Read() first, and only use Current while it returned true.");

    /// <summary>Advances to the next event; false at the end of the last source.</summary>
    public bool Read()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        while (true)
        {
            if (_pos < _end)
            {
                _current = _decoder.ReadRecord(_buffer.AsSpan(0, _bufferLength), _pos, _end, _bufferOffset);
                _pos = _current.Next;
                _hasCurrent = true;
                return true;
            }

            _hasCurrent = false;
            if (!LoadNextBuffer())
            {
                return false;
            }
        }
    }

    /// <summary>
    /// Pushes every remaining event to a handler. <see cref="IXEventHandler.OnMetadataChanged"/> is called
    /// before the first event after each metadata change.
    /// </summary>
    public void ReadAll<THandler>(ref THandler handler, CancellationToken cancellationToken = default)
        where THandler : IXEventHandler
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        var seen = -1;
        _hasCurrent = false;
        while (true)
        {
            if (_pos < _end)
            {
                if (seen != MetadataGeneration)
                {
                    seen = MetadataGeneration;
                    handler.OnMetadataChanged(Metadata);
                }

                // The tight loop over one buffer: validate, build, push.
                var span = _buffer.AsSpan(0, _bufferLength);
                while (_pos < _end)
                {
                    var layout = _decoder.ReadRecord(span, _pos, _end, _bufferOffset);
                    _pos = layout.Next;
                    var record = _decoder.CreateRecord(span, layout, _bufferOffset);
                    handler.OnEvent(in record);
                }

                cancellationToken.ThrowIfCancellationRequested();
            }

            if (!LoadNextBuffer())
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
        CloseStream();
        _sources.Dispose();
        ArrayPool<byte>.Shared.Return(_buffer);
        _buffer = [];
    }

    private static FileStream OpenFile(string path) =>
        new(path, new FileStreamOptions
        {
            Mode = FileMode.Open,
            Access = FileAccess.Read,
            Share = FileShare.ReadWrite | FileShare.Delete,
            BufferSize = 0, // whole XE buffers are read at once into the pooled array
            Options = FileOptions.SequentialScan,
        });

    private bool LoadNextBuffer()
    {
        while (true)
        {
            if (_stream is null && !OpenNextSource())
            {
                return false;
            }

            var header = Fill(0, XelConstants.BufferHeaderLength);
            if (header == 0)
            {
                CloseStream();
                continue;
            }

            if (header < XelConstants.BufferHeaderLength)
            {
                if (TruncatedTail("buffer header", _offset))
                {
                    continue;
                }
            }

            var padded = BinaryPrimitives.ReadUInt32LittleEndian(_buffer.AsSpan(0x10));
            if (padded <= XelConstants.BufferHeaderLength)
            {
                // A zeroed header ends the data of this file.
                CloseStream();
                continue;
            }

            if (padded > (uint)_options.MaxBufferSize || (_stream!.CanSeek && padded > _stream.Length - _offset))
            {
                var why = padded > (uint)_options.MaxBufferSize ? $"exceeds the limit of {_options.MaxBufferSize}" : "runs past the end of the file";
                if (padded <= (uint)_options.MaxBufferSize && TruncatedTail("buffer", _offset))
                {
                    continue;
                }

                throw Error($"Buffer length {padded} {why}", _offset + 0x10);
            }

            EnsureCapacity((int)padded);
            var got = Fill(XelConstants.BufferHeaderLength, (int)padded - XelConstants.BufferHeaderLength);
            if (got < (int)padded - XelConstants.BufferHeaderLength && TruncatedTail("buffer", _offset))
            {
                continue;
            }

            _bufferOffset = _offset;
            _bufferLength = (int)padded;
            _offset += padded;
            var kind = _decoder.Begin(_buffer.AsSpan(0, _bufferLength), _bufferOffset, out var start, out var end);
            switch (kind)
            {
                case XEventBufferKind.Events:
                    _pos = start;
                    _end = end;
                    return true;
                case XEventBufferKind.Metadata:
                case XEventBufferKind.Header:
                    MetadataGeneration++;
                    break;
            }
        }
    }

    /// <summary>Returns true to end the source quietly; otherwise throws the truncation error.</summary>
    private bool TruncatedTail(string what, long offset)
    {
        if (_options.AllowTruncatedTail)
        {
            CloseStream();
            return true;
        }

        throw Error($"File truncated inside a {what}", offset);
    }

    private bool OpenNextSource()
    {
        if (!_sources.MoveNext())
        {
            return false;
        }

        var (open, name) = _sources.Current;
        _decoder.SourceName = name;
        _stream = open();
        SourcesOpened++;
        _finishedSourcesBytes += _offset;
        _offset = 0;
        _pos = _end = 0;
        Span<byte> head = stackalloc byte[8];
        var got = _stream.ReadAtLeast(head, 8, throwOnEndOfStream: false);
        if (got < 8 || BinaryPrimitives.ReadUInt32LittleEndian(head) != XelConstants.FileMagic)
        {
            throw Error("Not an XEL file: the file header magic 0xEFAB375A is missing", 0);
        }

        var version = BinaryPrimitives.ReadUInt16LittleEndian(head[4..]);
        if (version != XelConstants.SupportedVersion)
        {
            throw new XelUnsupportedVersionException("file header", version, name, 4);
        }

        int headerLength = BinaryPrimitives.ReadUInt16LittleEndian(head[6..]);
        if (headerLength < 8)
        {
            throw Error($"File header length {headerLength} is too short", 6);
        }

        _offset = 8;
        EnsureCapacity(headerLength);
        if (Fill(0, headerLength - 8) < headerLength - 8)
        {
            throw Error("File truncated inside its header", _offset);
        }

        _offset = headerLength;
        _decoder.Reset();
        MetadataGeneration++;
        return true;
    }

    private int Fill(int at, int count) =>
        _stream!.ReadAtLeast(_buffer.AsSpan(at, count), count, throwOnEndOfStream: false);

    private void EnsureCapacity(int size)
    {
        if (_buffer.Length >= size)
        {
            return;
        }

        // Keep the header already read in [0, 32).
        var bigger = ArrayPool<byte>.Shared.Rent(size);
        _buffer.AsSpan(0, XelConstants.BufferHeaderLength).CopyTo(bigger);
        ArrayPool<byte>.Shared.Return(_buffer);
        _buffer = bigger;
    }

    private void CloseStream()
    {
        if (_stream is not null && !_leaveOpen)
        {
            _stream.Dispose();
        }

        _stream = null;
        _pos = _end = 0;
    }

    private XelFormatException Error(string problem, long offset) => new(problem, _decoder.SourceName, offset);
}

using System.Globalization;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// Writes "bytes read / total, MB/s" lines to stderr: one every 5 % of the input or every 2 s, whichever
/// comes first. Called once per read from disk (an XE buffer), never per event.
/// </summary>
internal sealed class ProgressReporter
{
    private static readonly TimeSpan Interval = TimeSpan.FromSeconds(2);

    private readonly TextWriter? _writer;
    private readonly long _totalBytes;
    private readonly long _step;
    private readonly TimeProvider _time;
    private readonly string _label;
    private readonly long _start;
    private long _lastTimestamp;
    private long _nextBytes;
    private long _printedBytes = -1;

    /// <summary>Creates a reporter; a null <paramref name="writer"/> counts bytes and prints nothing. Lines start with <paramref name="label"/>.</summary>
    public ProgressReporter(TextWriter? writer, long totalBytes, TimeProvider time, string label = "analyze")
    {
        _label = label;
        _writer = writer;
        _totalBytes = totalBytes;
        _step = Math.Max(1, totalBytes / 20);
        _nextBytes = _step;
        _time = time;
        _start = _lastTimestamp = time.GetTimestamp();
    }

    /// <summary>Bytes read so far over all files.</summary>
    public long BytesRead { get; private set; }

    /// <summary>Progress lines written.</summary>
    public int Lines { get; private set; }

    /// <summary>Counts bytes just read and prints a line when one is due.</summary>
    public void Advance(int bytes)
    {
        BytesRead += bytes;
        if (_writer is null)
        {
            return;
        }

        var now = _time.GetTimestamp();
        if (BytesRead >= _nextBytes || _time.GetElapsedTime(_lastTimestamp, now) >= Interval)
        {
            _lastTimestamp = now;
            _nextBytes = (BytesRead / _step + 1) * _step;
            Print(now);
        }
    }

    /// <summary>Prints the final line when progress is on (unless the last line already said it).</summary>
    public void Complete()
    {
        if (_writer is not null && _printedBytes != BytesRead)
        {
            Print(_time.GetTimestamp());
        }
    }

    private void Print(long now)
    {
        const double Mb = 1024.0 * 1024.0; // MB as in the report: 2^20 bytes
        var seconds = _time.GetElapsedTime(_start, now).TotalSeconds;
        var rate = seconds > 0 ? BytesRead / Mb / seconds : 0;
        var percent = _totalBytes > 0 ? Math.Min(100.0, 100.0 * BytesRead / _totalBytes) : 100.0;
        _writer!.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{_label}: {BytesRead / Mb:N1} / {_totalBytes / Mb:N1} MB ({percent:0} %), {rate:N1} MB/s"));
        Lines++;
        _printedBytes = BytesRead;
    }
}

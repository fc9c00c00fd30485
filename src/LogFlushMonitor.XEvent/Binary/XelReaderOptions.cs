namespace LogFlushMonitor.XEvent;

/// <summary>Limits and leniency of <see cref="XelReader"/>.</summary>
public sealed record XelReaderOptions
{
    /// <summary>Largest buffer accepted (real buffers were at most 275 KB; live buffers can be several MB).</summary>
    public int MaxBufferSize { get; init; } = 64 * 1024 * 1024;

    /// <summary>
    /// When true, a file that ends inside a buffer ends quietly (a file still being written). When false
    /// (default), that is a truncated file and raises <see cref="XelFormatException"/>.
    /// </summary>
    public bool AllowTruncatedTail { get; init; }

    /// <summary>Encoding of ansi_string values in <see cref="XelReader.ReadData"/> (default Latin-1).</summary>
    public System.Text.Encoding? AnsiEncoding { get; init; }
}

namespace LogFlushMonitor.XEvent;

/// <summary>
/// Raised when Extended Events data (a .xel file, a live-stream buffer or target XML) is malformed,
/// truncated or of an unsupported version. Carries where the problem was found.
/// </summary>
public class XelFormatException : Exception
{
    /// <summary>Creates an exception naming the source and the byte offset of the problem.</summary>
    public XelFormatException(string problem, string? fileName, long offset, Exception? inner = null)
        : base(Format(problem, fileName, offset), inner)
    {
        Problem = problem;
        FileName = fileName;
        Offset = offset;
    }

    /// <summary>The problem without location.</summary>
    public string Problem { get; }

    /// <summary>The file or stream name, or null when the data came from memory.</summary>
    public string? FileName { get; }

    /// <summary>Byte offset in the file (or in the buffer when no file is involved); -1 when unknown.</summary>
    public long Offset { get; }

    private static string Format(string problem, string? fileName, long offset) =>
        $"{problem} (in {fileName ?? "<buffer>"} at offset {(offset < 0 ? "?" : offset.ToString(System.Globalization.CultureInfo.InvariantCulture))})";
}

/// <summary>The data declares a format version this reader does not support.</summary>
public sealed class XelUnsupportedVersionException : XelFormatException
{
    /// <summary>Creates the exception.</summary>
    public XelUnsupportedVersionException(string what, int version, string? fileName, long offset)
        : base($"Unsupported {what} version {version}; supported: {XelConstants.SupportedVersion}", fileName, offset)
    {
        Version = version;
    }

    /// <summary>The version found in the data.</summary>
    public int Version { get; }
}

namespace LogFlushMonitor.XEvent.Xml;

/// <summary>Target XML that is malformed, hostile (DTD, entities), too large or of the wrong shape.</summary>
public sealed class XEventXmlException : XelFormatException
{
    /// <summary>Creates the exception; line and position are 1-based, 0 when unknown.</summary>
    public XEventXmlException(string problem, string? sourceName, int line, int position, Exception? inner = null)
        : base($"{problem} (line {line}, position {position})", sourceName ?? "<xml>", -1, inner)
    {
        Line = line;
        Position = position;
    }

    /// <summary>Line of the problem.</summary>
    public int Line { get; }

    /// <summary>Position in the line.</summary>
    public int Position { get; }
}

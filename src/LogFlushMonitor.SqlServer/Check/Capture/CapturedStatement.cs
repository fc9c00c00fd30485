using LogFlushMonitor.XEvent.Binary;
namespace LogFlushMonitor.SqlServer.Check.Capture;

/// <summary>One statement as the capture sent it and what the server answered: columns with their SQL types and every row, or the error.</summary>
public sealed record CapturedStatement
{
    /// <summary>The statement's name in the capture (e.g. <c>counters</c>), the same for every version of its text.</summary>
    public required string Name { get; init; }

    /// <summary>1 or 2 for the two polls; null for a statement sent once.</summary>
    public int? Poll { get; init; }

    /// <summary>The statement's text as the product holds it (Sql/*.cs).</summary>
    public required string Text { get; init; }

    /// <summary>The text sent, when it differs from <see cref="Text"/> (a list parameter expanded as Dapper does).</summary>
    public string? Sent { get; init; }

    /// <summary>Parameter values sent (name without '@', a string or a list of strings).</summary>
    public IReadOnlyDictionary<string, object> Parameters { get; init; } = new Dictionary<string, object>();

    /// <summary>When it was sent (UTC).</summary>
    public DateTime StartedUtc { get; init; }

    /// <summary>How long the answer took.</summary>
    public double ElapsedMs { get; init; }

    /// <summary>Column names and their SQL types as the server described them (e.g. <c>nchar</c>, <c>bigint</c>).</summary>
    public IReadOnlyList<(string Name, string Type)> Columns { get; init; } = [];

    /// <summary>The rows, one value per column (null for NULL).</summary>
    public IReadOnlyList<object?[]> Rows { get; init; } = [];

    /// <summary>The SQL error number when the statement failed (0 when the failure was not the server's).</summary>
    public int? ErrorNumber { get; init; }

    /// <summary>The server's message when the statement failed.</summary>
    public string? ErrorMessage { get; init; }
}

/// <summary>One row of the live stream as it came: its type, its length and its bytes (null when <c>data</c> was NULL).</summary>
public sealed record CapturedStreamRow(int Type, byte[]? Data, DateTime ReceivedUtc);

/// <summary>Everything captured from one instance.</summary>
public sealed record InstanceCaptureResult
{
    /// <summary>The configured instance name.</summary>
    public required string Instance { get; init; }

    /// <summary>Every statement sent, in order.</summary>
    public List<CapturedStatement> Statements { get; } = [];

    /// <summary>The temporary session's name and the DDL that created it (null when it could not be built).</summary>
    public string? Session { get; set; }

    /// <summary>The live stream's rows, in order.</summary>
    public List<CapturedStreamRow> StreamRows { get; } = [];

    /// <summary>Rows received past <see cref="CaptureSettings.MaxStreamBytes"/>, counted and not kept.</summary>
    public long StreamRowsOverLimit { get; set; }

    /// <summary>Every stream row received, by its type column (kept, dropped or over the byte limit alike).</summary>
    public LiveStreamRowTally StreamRowTypes { get; } = new();

    /// <summary>How the stream ended (the window closed, or the server's error).</summary>
    public string? StreamEnd { get; set; }

    /// <summary>The histogram target's XML (null when there was none).</summary>
    public string? HistogramXml { get; set; }

    /// <summary>Problems of the capture itself (could not connect, could not drop the session), in words.</summary>
    public List<string> Problems { get; } = [];
}

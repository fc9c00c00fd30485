using System.Globalization;

namespace LogFlushMonitor.Analysis;

/// <summary>How the text report and the HTML report write durations and sizes (binary units).</summary>
internal static class ReportText
{
    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;

    /// <summary>Milliseconds with up to three decimals, or "n/a".</summary>
    public static string Ms(double? ms) => ms is { } v ? string.Create(Ci, $"{v:0.###} ms") : "n/a";

    /// <summary>Bytes in B, KB, MB or GB (1 KB = 1,024 bytes).</summary>
    public static string Bytes(long bytes) => bytes switch
    {
        < 1024 => string.Create(Ci, $"{bytes} B"),
        < 1024 * 1024 => string.Create(Ci, $"{bytes / 1024.0:0.0} KB"),
        < 1024L * 1024 * 1024 => string.Create(Ci, $"{bytes / (1024.0 * 1024):0.0} MB"),
        _ => string.Create(Ci, $"{bytes / (1024.0 * 1024 * 1024):0.00} GB"),
    };
}

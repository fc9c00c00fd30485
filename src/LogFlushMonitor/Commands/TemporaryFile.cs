namespace LogFlushMonitor.Commands;

/// <summary>
/// The output files of <c>report --out</c> and <c>simulate --out</c> are written under a temporary name beside the
/// target and renamed only when complete, so a reader never sees half a file; a write that fails (a full disk, a
/// cancelled run) removes the temporary file and leaves the target as it was.
/// </summary>
internal static class TemporaryFile
{
    /// <summary>The temporary name for <paramref name="target"/>: beside it (one file system, so the rename is atomic), hidden, unique.</summary>
    public static string For(string target)
    {
        var full = Path.GetFullPath(target);
        return Path.Combine(Path.GetDirectoryName(full) ?? ".", "." + Path.GetFileName(full) + "." + Environment.ProcessId.ToString(System.Globalization.CultureInfo.InvariantCulture) + ".tmp");
    }

    /// <summary>Removes <paramref name="path"/> if it is there; a failure to remove it is not another error.</summary>
    public static void Delete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Nothing more to do: the error that got here is the one to report.
        }
    }
}

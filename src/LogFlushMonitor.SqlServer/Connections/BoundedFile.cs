using System.Text;
using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.SqlServer.Connections;

/// <summary>
/// Reads the small files the configuration names (a connection string file, the OTLP certificates and key): only a
/// regular file (a symbolic link to one, as a mounted Kubernetes secret is, counts), and at most a given size. A named
/// pipe would block the read for ever (check hung), a device such as /dev/zero never ends (4 GB read, then out of
/// memory), and a huge file would be read whole: each is refused before reading, with a message naming the file and
/// what it is, never its content.
/// </summary>
public static class BoundedFile
{
    /// <summary>The cap for a connection string file: a connection string is a few hundred bytes.</summary>
    public const int ConnectionStringMaxBytes = 64 * 1024;

    /// <summary>The cap for a PEM certificate or key file (a bundle of many authorities stays well under it).</summary>
    public const int PemMaxBytes = 1024 * 1024;

    /// <summary>
    /// Why <paramref name="path"/> cannot be read as a small file, or null: missing, not a regular file, or larger than
    /// <paramref name="maxBytes"/>. Opens nothing.
    /// </summary>
    public static string? Problem(string path, int maxBytes)
    {
        var kind = XelFiles.KindOf(path);
        if (kind == XelEntryKind.Missing)
        {
            return "does not exist";
        }

        if (kind != XelEntryKind.Regular)
        {
            return $"is {Describe(kind)}, not a regular file";
        }

        var length = new FileInfo(path).Length;
        return length > maxBytes ? $"is {length} bytes, more than the {maxBytes} bytes such a file may have" : null;
    }

    /// <summary>
    /// The file's bytes, after <see cref="Problem"/> found none; the read stops past <paramref name="maxBytes"/> in case
    /// the file grew meanwhile. Throws <see cref="IOException"/> (the message names the file and the problem) or
    /// <see cref="UnauthorizedAccessException"/>.
    /// </summary>
    public static byte[] ReadAllBytes(string path, int maxBytes)
    {
        if (Problem(path, maxBytes) is { } problem)
        {
            throw new IOException($"{path} {problem}.");
        }

        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1, FileOptions.SequentialScan);
        var buffer = new byte[Math.Min(maxBytes + 1L, Math.Max(stream.Length + 1, 4096))];
        var total = 0;
        while (total < buffer.Length)
        {
            var read = stream.Read(buffer, total, buffer.Length - total);
            if (read == 0)
            {
                return buffer.AsSpan(0, total).ToArray();
            }

            total += read;
            if (total > maxBytes)
            {
                throw new IOException($"{path} is more than the {maxBytes} bytes such a file may have.");
            }

            if (total == buffer.Length)
            {
                Array.Resize(ref buffer, (int)Math.Min(maxBytes + 1L, buffer.Length * 2L));
            }
        }

        throw new IOException($"{path} is more than the {maxBytes} bytes such a file may have.");
    }

    /// <summary><see cref="ReadAllBytes"/> as UTF-8 text (a byte order mark is skipped).</summary>
    public static string ReadAllText(string path, int maxBytes)
    {
        var bytes = ReadAllBytes(path, maxBytes);
        var span = bytes.AsSpan();
        if (span.StartsWith(Encoding.UTF8.Preamble))
        {
            span = span[Encoding.UTF8.Preamble.Length..];
        }

        return Encoding.UTF8.GetString(span);
    }

    private static string Describe(XelEntryKind kind) => kind switch
    {
        XelEntryKind.Directory => "a directory",
        XelEntryKind.Fifo => "a named pipe (FIFO)",
        XelEntryKind.CharacterDevice => "a character device",
        XelEntryKind.BlockDevice => "a block device",
        XelEntryKind.Socket => "a socket",
        _ => "not a regular file",
    };
}

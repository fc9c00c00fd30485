using System.Globalization;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>What kind of file system entry a path names (Unix file types; elsewhere only regular or directory).</summary>
public enum XelEntryKind
{
    /// <summary>A regular file: the only kind that is read.</summary>
    Regular,

    /// <summary>A directory (e.g. matched by a glob).</summary>
    Directory,

    /// <summary>A named pipe: opening it blocks until a writer appears.</summary>
    Fifo,

    /// <summary>A character device.</summary>
    CharacterDevice,

    /// <summary>A block device.</summary>
    BlockDevice,

    /// <summary>A Unix socket.</summary>
    Socket,

    /// <summary>Nothing there (or a dangling symbolic link).</summary>
    Missing,
}

/// <summary>An entry a folder or glob matched that is not read, and why.</summary>
public sealed record XelSkippedEntry(string Path, XelEntryKind Kind)
{
    /// <summary>The message for a person, e.g. "/data/x.xel is a named pipe (FIFO), not a regular file: skipped".</summary>
    public string Reason => $"{Path} is {XelFiles.Describe(Kind)}, not a regular file: skipped";
}

/// <summary>The files a path, folder or glob names, in rollover order, and the entries left out.</summary>
public sealed record XelFileSet(IReadOnlyList<string> Files, IReadOnlyList<XelSkippedEntry> Skipped);

/// <summary>Finds the .xel files of a path, glob or folder, in rollover order.</summary>
public static partial class XelFiles
{
    /// <summary>
    /// Expands a file path, a folder (its *.xel files) or a glob in the file-name part
    /// (<c>/dir/name*.xel</c>) and orders the result: rollover sets <c>name_0_&lt;ticks&gt;.xel</c> by ticks.
    /// Entries that are not regular files (named pipes, devices, directories) are left out: use
    /// <see cref="Find"/> to learn which. A path that names such an entry directly raises
    /// <see cref="IOException"/> saying what it is (opening a named pipe would block).
    /// </summary>
    public static IReadOnlyList<string> Expand(string pathOrPattern)
    {
        var set = Find(pathOrPattern);
        if (set.Files.Count == 0 && set.Skipped is [{ } only] && only.Path == pathOrPattern)
        {
            throw new IOException(only.Reason);
        }

        return set.Files;
    }

    /// <summary>
    /// Like <see cref="Expand"/>, and also returns the entries it matched but will not read (not regular
    /// files), so a caller can report each one. Raises <see cref="FileNotFoundException"/> when a plain path
    /// names nothing.
    /// </summary>
    public static XelFileSet Find(string pathOrPattern)
    {
        ArgumentException.ThrowIfNullOrEmpty(pathOrPattern);
        if (Directory.Exists(pathOrPattern))
        {
            return Classify(Directory.EnumerateFileSystemEntries(pathOrPattern, "*.xel"));
        }

        var kind = KindOf(pathOrPattern);
        if (kind != XelEntryKind.Missing)
        {
            return Classify([pathOrPattern]);
        }

        var fileName = Path.GetFileName(pathOrPattern);
        if (fileName.AsSpan().IndexOfAny('*', '?') >= 0)
        {
            var dir = Path.GetDirectoryName(pathOrPattern);
            dir = string.IsNullOrEmpty(dir) ? "." : dir;
            return Directory.Exists(dir) ? Classify(Directory.EnumerateFileSystemEntries(dir, fileName)) : new XelFileSet([], []);
        }

        throw new FileNotFoundException($"No .xel file, folder or pattern matches '{pathOrPattern}'", pathOrPattern);
    }

    /// <summary>Orders files: by rollover prefix, then the ticks part numerically, then by name.</summary>
    public static IReadOnlyList<string> Order(IEnumerable<string> paths) =>
        [.. paths.Select(p => (Path: p, Key: KeyOf(p)))
            .OrderBy(x => x.Key.Prefix, StringComparer.Ordinal)
            .ThenBy(x => x.Key.Ticks)
            .ThenBy(x => x.Path, StringComparer.Ordinal)
            .Select(x => x.Path)];

    /// <summary>
    /// The kind of entry at <paramref name="path"/>, following symbolic links. On Linux it asks the kernel
    /// (statx); elsewhere, or when that is unavailable, anything that is not a directory counts as regular.
    /// </summary>
    public static XelEntryKind KindOf(string path)
    {
        if (OperatingSystem.IsLinux() && UnixKind(path) is { } kind)
        {
            return kind;
        }

        return Directory.Exists(path) ? XelEntryKind.Directory : File.Exists(path) ? XelEntryKind.Regular : XelEntryKind.Missing;
    }

    /// <summary>Opens a regular file for sequential reading; anything else raises <see cref="IOException"/> without being opened.</summary>
    public static FileStream OpenRead(string path)
    {
        var kind = KindOf(path);
        if (kind is not (XelEntryKind.Regular or XelEntryKind.Missing))
        {
            throw new IOException(new XelSkippedEntry(path, kind).Reason);
        }

        return new FileStream(path, new FileStreamOptions
        {
            Mode = FileMode.Open,
            Access = FileAccess.Read,
            Share = FileShare.ReadWrite | FileShare.Delete,
            BufferSize = 0, // whole XE buffers are read at once into the pooled window
            Options = FileOptions.SequentialScan,
        });
    }

    internal static string Describe(XelEntryKind kind) => kind switch
    {
        XelEntryKind.Directory => "a directory",
        XelEntryKind.Fifo => "a named pipe (FIFO)",
        XelEntryKind.CharacterDevice => "a character device",
        XelEntryKind.BlockDevice => "a block device",
        XelEntryKind.Socket => "a socket",
        XelEntryKind.Missing => "missing (a broken symbolic link, or removed while listed)",
        _ => "a regular file",
    };

    private static XelFileSet Classify(IEnumerable<string> entries)
    {
        var files = new List<string>();
        var skipped = new List<XelSkippedEntry>();
        foreach (var entry in entries)
        {
            var kind = KindOf(entry);
            if (kind == XelEntryKind.Regular)
            {
                files.Add(entry);
            }
            else
            {
                // Listed but not there: a dangling symbolic link (or removed meanwhile).
                skipped.Add(new XelSkippedEntry(entry, kind));
            }
        }

        return new XelFileSet(Order(files), [.. skipped.OrderBy(s => s.Path, StringComparer.Ordinal)]);
    }

    private static (string Prefix, decimal Ticks) KeyOf(string path)
    {
        var m = RolloverName().Match(Path.GetFileName(path));
        if (m.Success && decimal.TryParse(m.Groups["ticks"].ValueSpan, NumberStyles.None, CultureInfo.InvariantCulture, out var ticks))
        {
            return (Path.Combine(Path.GetDirectoryName(path) ?? string.Empty, m.Groups["prefix"].Value), ticks);
        }

        return (Path.Combine(Path.GetDirectoryName(path) ?? string.Empty, Path.GetFileNameWithoutExtension(path)), 0);
    }

    [GeneratedRegex(@"^(?<prefix>.*)_\d+_(?<ticks>\d{1,28})\.xel$", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex RolloverName();

    private static unsafe XelEntryKind? UnixKind(string path)
    {
        // struct statx is 256 bytes on every architecture; stx_mode is the u16 at offset 28.
        const int AtFdCwd = -100, StatxType = 1, ENOENT = 2, ENOTDIR = 20;
        var buffer = stackalloc byte[256];
        try
        {
            if (Statx(AtFdCwd, path, 0, StatxType, buffer) != 0)
            {
                var errno = Marshal.GetLastPInvokeError();
                return errno is ENOENT or ENOTDIR ? XelEntryKind.Missing : null;
            }
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            return null;
        }

        return (*(ushort*)(buffer + 28) & 0xF000) switch
        {
            0x8000 => XelEntryKind.Regular,
            0x4000 => XelEntryKind.Directory,
            0x1000 => XelEntryKind.Fifo,
            0x2000 => XelEntryKind.CharacterDevice,
            0x6000 => XelEntryKind.BlockDevice,
            0xC000 => XelEntryKind.Socket,
            _ => null,
        };
    }

    [LibraryImport("libc", EntryPoint = "statx", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static unsafe partial int Statx(int dirFd, string path, int flags, uint mask, byte* buffer);
}

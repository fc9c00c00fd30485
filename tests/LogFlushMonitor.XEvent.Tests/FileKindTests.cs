using System.Diagnostics;
using LogFlushMonitor.XEvent.Binary;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>Only regular files are opened: a named pipe would block the reader forever.</summary>
public sealed class FileKindTests : IDisposable
{
    private readonly string _dir = XelTestFiles.TempDirectory();

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private string MakeFifo(string name)
    {
        var path = Path.Combine(_dir, name);
        using var mkfifo = Process.Start(new ProcessStartInfo("mkfifo", [path]) { RedirectStandardError = true })!;
        mkfifo.WaitForExit();
        Assert.Equal(0, mkfifo.ExitCode);
        return path;
    }

    [SkippableFact]
    public void A_named_pipe_and_a_directory_in_a_folder_or_glob_are_skipped_with_a_reason_and_never_opened()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "named pipes and statx are Linux facts; elsewhere every non-directory counts as a file");
        var good = Path.Combine(_dir, "x_0_1.xel");
        File.WriteAllBytes(good, GeneratedSets.Write(10, 1, seed: 1));
        var fifo = MakeFifo("x_0_2.xel");
        Directory.CreateDirectory(Path.Combine(_dir, "x_0_3.xel"));

        var byFolder = XelFiles.Find(_dir);
        var byGlob = XelFiles.Find(Path.Combine(_dir, "x_*.xel"));

        foreach (var set in new[] { byFolder, byGlob })
        {
            Assert.Equal([good], set.Files);
            Assert.Equal([(fifo, XelEntryKind.Fifo), (Path.Combine(_dir, "x_0_3.xel"), XelEntryKind.Directory)], set.Skipped.Select(s => (s.Path, s.Kind)));
            Assert.Contains("named pipe (FIFO), not a regular file: skipped", set.Skipped[0].Reason, StringComparison.Ordinal);
        }

        Assert.Equal([good], XelFiles.Expand(_dir));
        Assert.Contains("named pipe", Assert.Throws<IOException>(() => XelFiles.Expand(fifo)).Message, StringComparison.Ordinal);

        // Handed straight to the readers, the pipe is reported as unreadable instead of blocking the read.
        var options = new XelReaderOptions { Damage = XelDamageHandling.SkipAndReport };
        using (var reader = XelReader.Open([fifo, good], options))
        {
            var handler = new Fingerprint();
            reader.ReadAll(ref handler);
            Assert.Equal([XelFileStatus.Unreadable, XelFileStatus.Ok], reader.Files.Select(f => f.Status));
        }

        var results = XelParallelReader.Read([fifo, good], [new Fingerprint()], options);
        Assert.Equal([XelFileStatus.Unreadable, XelFileStatus.Ok], results.Select(f => f.Status));
        Assert.Contains("named pipe", results[0].Error!.Message, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void A_broken_symbolic_link_matched_by_a_glob_is_reported_not_dropped()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "statx reports the dangling link on Linux only");
        var link = Path.Combine(_dir, "gone_0_1.xel");
        File.CreateSymbolicLink(link, Path.Combine(_dir, "nowhere.xel"));

        var set = XelFiles.Find(Path.Combine(_dir, "gone_*.xel"));

        Assert.Empty(set.Files);
        var skipped = Assert.Single(set.Skipped);
        Assert.Equal(XelEntryKind.Missing, skipped.Kind);
        Assert.Contains("broken symbolic link", skipped.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Kinds_of_ordinary_entries()
    {
        var file = Path.Combine(_dir, "a.xel");
        File.WriteAllText(file, "x");
        Assert.Equal(XelEntryKind.Regular, XelFiles.KindOf(file));
        Assert.Equal(XelEntryKind.Directory, XelFiles.KindOf(_dir));
        Assert.Equal(XelEntryKind.Missing, XelFiles.KindOf(Path.Combine(_dir, "nothing.xel")));
        if (OperatingSystem.IsLinux())
        {
            Assert.Equal(XelEntryKind.CharacterDevice, XelFiles.KindOf("/dev/null"));
        }
    }
}

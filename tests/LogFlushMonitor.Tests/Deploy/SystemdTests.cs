using System.Runtime.Versioning;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// deploy/systemd: install.sh creates the user's paths the unit uses (run under a temporary root), the unit passes
/// `systemd-analyze verify` without a warning, and the shell scripts in deploy/ pass shellcheck.
/// </summary>
[SupportedOSPlatform("linux")]
public class SystemdTests
{
    private static readonly string Unit = DeployFiles.Path("deploy", "systemd", "logflushmonitor.service");

    private static Dictionary<string, List<string>> UnitSettings() =>
        File.ReadLines(Unit)
            .Where(l => l.Contains('=') && !l.StartsWith('#'))
            .GroupBy(l => l[..l.IndexOf('=')], l => l[(l.IndexOf('=') + 1)..])
            .ToDictionary(g => g.Key, g => g.ToList());

    /// <summary>Every path the unit reads, runs or writes, as absolute paths.</summary>
    private static List<string> UnitPaths()
    {
        var settings = UnitSettings();
        var paths = new List<string> { settings["ExecStart"].Single().Split(' ')[0], settings["WorkingDirectory"].Single() };
        paths.AddRange(settings.GetValueOrDefault("EnvironmentFile", []).Select(p => p.TrimStart('-')));
        paths.AddRange(settings.GetValueOrDefault("ReadWritePaths", []).SelectMany(p => p.Split(' ', StringSplitOptions.RemoveEmptyEntries)));
        paths.AddRange(settings.GetValueOrDefault("LogsDirectory", []).Select(p => "/var/log/" + p));
        paths.AddRange(settings.GetValueOrDefault("StateDirectory", []).Select(p => "/var/lib/" + p));
        paths.AddRange(settings.GetValueOrDefault("ConfigurationDirectory", []).Select(p => "/etc/" + p));
        return paths;
    }

    private static async Task<DirectoryInfo> InstallUnderTemporaryRootAsync()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "install.sh and systemd units are for Linux");
        var bash = Tool.Require("bash", "bash");
        var work = Directory.CreateTempSubdirectory("lfm-systemd-");
        var publish = Directory.CreateDirectory(Path.Combine(work.FullName, "publish"));
        var program = Path.Combine(publish.FullName, "logflushmonitor");
        await File.WriteAllTextAsync(program, "#!/bin/sh\nexit 0\n");
        File.SetUnixFileMode(program, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute | UnixFileMode.GroupRead | UnixFileMode.GroupExecute);
        var root = Path.Combine(work.FullName, "root");
        var (code, stdout, stderr) = await Tool.RunAsync(bash, [DeployFiles.Path("deploy", "systemd", "install.sh"), "--root", root, publish.FullName]);
        Assert.True(code == 0, "install.sh: " + stdout + stderr);
        return work;
    }

    [SkippableFact]
    public async Task Install_script_creates_every_path_the_unit_uses()
    {
        var work = await InstallUnderTemporaryRootAsync();
        try
        {
            var root = Path.Combine(work.FullName, "root");
            var paths = UnitPaths();
            Assert.Contains("/var/log/logflushmonitor", paths);
            foreach (var path in paths)
            {
                Assert.True(File.Exists(root + path) || Directory.Exists(root + path), $"the unit uses {path}, which install.sh did not create");
            }

            Assert.True(File.Exists(root + "/etc/systemd/system/logflushmonitor.service"));
            Assert.Equal(File.ReadAllText(Unit), File.ReadAllText(root + "/etc/systemd/system/logflushmonitor.service"));
            // Secrets: not readable by other users.
            var secrets = File.GetUnixFileMode(root + "/etc/logflushmonitor/environment");
            Assert.Equal(UnixFileMode.None, secrets & (UnixFileMode.OtherRead | UnixFileMode.OtherWrite | UnixFileMode.OtherExecute));
            Assert.True((File.GetUnixFileMode(root + "/opt/logflushmonitor/logflushmonitor") & UnixFileMode.OtherExecute) != 0);
        }
        finally
        {
            work.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task Install_script_refuses_a_folder_without_the_published_program()
    {
        var bash = Tool.Require("bash", "bash");
        var empty = Directory.CreateTempSubdirectory("lfm-systemd-empty-");
        try
        {
            var (code, _, stderr) = await Tool.RunAsync(bash, [DeployFiles.Path("deploy", "systemd", "install.sh"), "--root", Path.Combine(empty.FullName, "root"), empty.FullName]);
            Assert.Equal(2, code);
            Assert.Contains("logflushmonitor is missing or not executable", stderr, StringComparison.Ordinal);
            Assert.False(Directory.Exists(Path.Combine(empty.FullName, "root")));
        }
        finally
        {
            empty.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task Unit_passes_systemd_analyze_verify_without_a_warning()
    {
        var analyze = Tool.Require("systemd-analyze", "systemd");
        // verify wants ExecStart to exist: a copy of the unit runs the program install.sh put under a temporary root.
        var work = await InstallUnderTemporaryRootAsync();
        try
        {
            var root = Path.Combine(work.FullName, "root");
            var copy = Path.Combine(work.FullName, "logflushmonitor.service");
            await File.WriteAllTextAsync(copy, File.ReadAllText(Unit).Replace("ExecStart=/opt/", "ExecStart=" + root + "/opt/", StringComparison.Ordinal));
            var (code, stdout, stderr) = await Tool.RunAsync(analyze, ["verify", copy]);
            Skip.If(stderr.Contains("Failed to connect to bus", StringComparison.Ordinal) || stderr.Contains("System has not been booted", StringComparison.Ordinal), "systemd-analyze cannot run here: " + stderr);
            Assert.True(code == 0, stdout + stderr);
            // Unknown keys and bad values are only warnings (exit code 0): none is allowed.
            Assert.Equal("", (stdout + stderr).Trim());
        }
        finally
        {
            work.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task Shell_scripts_in_deploy_pass_shellcheck()
    {
        var shellcheck = Tool.Require("shellcheck", "shellcheck");
        var scripts = Directory.EnumerateFiles(DeployFiles.Path("deploy"), "*.sh", SearchOption.AllDirectories).Order().ToList();
        Assert.True(scripts.Count >= 4, string.Join(", ", scripts));
        var (code, stdout, stderr) = await Tool.RunAsync(shellcheck, scripts);
        Assert.True(code == 0, stdout + stderr);
    }
}

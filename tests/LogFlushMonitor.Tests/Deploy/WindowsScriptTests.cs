namespace LogFlushMonitor.Tests.Deploy;

/// <summary>deploy/windows/install.ps1 parses with PowerShell's own parser (where PowerShell is installed).</summary>
public class WindowsScriptTests
{
    [SkippableFact]
    public async Task Install_script_parses_without_errors()
    {
        var pwsh = Tool.Find("pwsh") ?? Tool.Find("pwsh.exe") ?? Tool.Find("powershell.exe");
        Skip.If(pwsh is null, "PowerShell (pwsh) is not installed: Debian has no package for it, so the script is checked on Windows or where pwsh exists");
        var script = DeployFiles.Path("deploy", "windows", "install.ps1");
        var (code, stdout, stderr) = await Tool.RunAsync(pwsh!, [
            "-NoProfile", "-NonInteractive", "-Command",
            "$errors = $null; [System.Management.Automation.Language.Parser]::ParseFile($args[0], [ref]$null, [ref]$errors) | Out-Null; "
            + "$errors | ForEach-Object { $_.ToString() }; exit $errors.Count",
            script,
        ]);
        Assert.True(code == 0, "install.ps1 has parse errors: " + stdout + stderr);
    }
}

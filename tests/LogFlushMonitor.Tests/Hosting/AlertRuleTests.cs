using System.Diagnostics;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>deploy/prometheus/alerts.yml is valid and its unit tests (alerts.test.yml) pass under the real promtool.</summary>
public class AlertRuleTests
{
    private static string PrometheusFolder()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            var candidate = Path.Combine(dir.FullName, "deploy", "prometheus");
            if (File.Exists(Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
            {
                return candidate;
            }
        }

        throw new InvalidOperationException("LogFlushMonitor.sln not found above " + AppContext.BaseDirectory);
    }

    private static async Task<(int Code, string Output)> Promtool(string workingDirectory, params string[] args)
    {
        var psi = new ProcessStartInfo(Environment.GetEnvironmentVariable("PROMTOOL") ?? "/usr/bin/promtool", args)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using var p = Process.Start(psi)!;
        var output = await p.StandardOutput.ReadToEndAsync() + await p.StandardError.ReadToEndAsync();
        await p.WaitForExitAsync();
        return (p.ExitCode, output);
    }

    [SkippableTheory]
    [InlineData("check", "rules", "alerts.yml")]
    [InlineData("test", "rules", "alerts.test.yml")]
    public async Task Alert_rules_pass_promtool(string verb, string noun, string file)
    {
        var promtool = Environment.GetEnvironmentVariable("PROMTOOL") ?? "/usr/bin/promtool";
        Skip.IfNot(File.Exists(promtool), $"promtool not found at {promtool} (Debian package prometheus; .ci/run installs it)");
        var (code, output) = await Promtool(PrometheusFolder(), verb, noun, file);
        Assert.True(code == 0, $"promtool {verb} {noun} {file}: {output}");
        Assert.Contains("SUCCESS", output, StringComparison.Ordinal);
    }
}

using System.IO.Compression;
using System.Text.Json.Nodes;
using LogFlushMonitor.Commands;
using LogFlushMonitor.SqlServer.Check.Capture;
using LogFlushMonitor.SqlServer.Tests.Scripted;

namespace LogFlushMonitor.SqlServer.Tests.Capture;

/// <summary>Runs <c>check --capture</c> (the command's own code, in process) against a scripted server and opens the zip.</summary>
internal static class CaptureRun
{
    /// <summary>A login and password found nowhere else: a capture holding either has leaked it.</summary>
    public const string Login = "capt_login_q7x3";

    public static readonly string Password = "Pw-" + Guid.NewGuid().ToString("N");

    /// <summary>Short durations: a capture takes 30 s by default.</summary>
    public static CaptureSettings Quick(bool anonymize = false) =>
        new() { PollGap = TimeSpan.FromSeconds(1), StreamTime = TimeSpan.FromSeconds(2), Anonymize = anonymize, ToolVersion = "logflushmonitor test" };

    public static async Task<(int Exit, string Output, string Error)> RunAsync(ScriptedSqlServer server, string path, CaptureSettings settings,
        CancellationToken ct = default, string instance = "prod-1")
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exit = await CheckCommand.RunAsync(
            [
                $"--Sources:SqlServer:Instances:0:Name={instance}",
                $"--Sources:SqlServer:Instances:0:ConnectionString={server.ConnectionString(Login, Password)}",
                "--Sources:SqlServer:Instances:0:SessionName=lfm_cap",
                "--Sources:SqlServer:CommandTimeout=00:00:10",
            ],
            output, error, ct, new CheckCommand.CaptureRequest(path, settings));
        return (exit, output.ToString(), error.ToString());
    }

    /// <summary>Every entry's bytes by name.</summary>
    public static Dictionary<string, byte[]> Entries(string path)
    {
        using var zip = ZipFile.OpenRead(path);
        return zip.Entries.ToDictionary(e => e.FullName, e =>
        {
            using var s = e.Open();
            using var m = new MemoryStream();
            s.CopyTo(m);
            return m.ToArray();
        });
    }

    public static JsonNode Json(Dictionary<string, byte[]> entries, string name) => JsonNode.Parse(entries[name])!;

    public static string TempPath() => Path.Combine(Path.GetTempPath(), $"lfm-capture-{Guid.NewGuid():N}.zip");
}

using System.Globalization;
using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Cli;

/// <summary>
/// A password given through any configuration path never appears in anything the monitor writes or serves (issue 20
/// item 2): each path carries its own password, and every output is searched for each of them.
/// </summary>
public partial class SecretLeakCliTests
{
    /// <summary>Every way a secret reaches the configuration, each with a password of its own.</summary>
    private static readonly string[] Paths = ["json", "env", "cli", "file", "envvar", "otlpheaders", "otelheaders"];

    private static string Password(string path) => $"{TestSecrets.Password}{path}";

    private static void AssertNoPassword(string where, string text)
    {
        foreach (var path in Paths)
        {
            Assert.False(text.Contains(Password(path), StringComparison.Ordinal), $"the password given through {path} appears in {where}:\n{text}");
        }

        Assert.DoesNotContain(TestSecrets.Password, text, StringComparison.Ordinal);
    }

    private static string ConnectionString(int port, string path) =>
        $"Server=tcp:127.0.0.1,{port};User ID=monitor;Password={Password(path)};Encrypt=False;Connect Timeout=1";

    [Theory]
    [InlineData("run", "cli")]
    [InlineData("run", "env")]
    [InlineData("run", "json")]
    [InlineData("check", "cli")]
    [InlineData("check", "env")]
    [InlineData("check", "json")]
    public async Task An_instance_given_without_its_element_number_is_an_error_naming_the_fix_without_the_password(string command, string path)
    {
        using var directory = new TempDirectory();
        var connectionString = ConnectionString(TestPorts.Free(), path);
        var environment = new Dictionary<string, string>();
        var args = new List<string> { command };
        if (command == "run")
        {
            args.AddRange(["--urls", "http://127.0.0.1:0"]);
        }

        switch (path)
        {
            case "cli":
                args.Add($"--Sources:SqlServer:Instances:ConnectionString={connectionString}");
                args.Add("--Sources:SqlServer:Instances:Name=prod1");
                break;
            case "env":
                environment["LOGFLUSHMONITOR__SOURCES__SQLSERVER__INSTANCES__CONNECTIONSTRING"] = connectionString;
                environment["LOGFLUSHMONITOR__SOURCES__SQLSERVER__INSTANCES__NAME"] = "prod1";
                break;
            default:
                // An object where the array belongs.
                directory.Write("appsettings.json", $$"""{ "Sources": { "SqlServer": { "Instances": { "Name": "prod1", "ConnectionString": "{{connectionString}}" } } } }""");
                break;
        }

        using var cli = CliProcess.Start(args, environment, directory.Path);
        var code = await cli.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.True(code == 2, $"exit {code}: {cli.StdErr}");
        Assert.Contains("Sources:SqlServer:Instances is a list", cli.StdErr, StringComparison.Ordinal);
        Assert.Contains("Sources:SqlServer:Instances:0:", cli.StdErr, StringComparison.Ordinal);
        Assert.Contains("LOGFLUSHMONITOR__SOURCES__SQLSERVER__INSTANCES__0__", cli.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", cli.StdErr, StringComparison.Ordinal);
        AssertNoPassword($"the output of {command}", cli.StdOut + cli.StdErr);
    }

    [SkippableFact]
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    public async Task No_password_from_any_path_reaches_stdout_stderr_the_log_file_metrics_readyz_or_check()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1)");
        using var directory = new TempDirectory();
        var closed = TestPorts.Free();
        directory.Write("appsettings.json", $$"""{ "Sources": { "SqlServer": { "Instances": [ { "Name": "json", "ConnectionString": "{{ConnectionString(closed, "json")}}" } ] } } }""");
        var secretFile = directory.Write("sql.secret", ConnectionString(closed, "file"));
        File.SetUnixFileMode(secretFile, UnixFileMode.UserRead | UnixFileMode.UserWrite);
        var logFile = Path.Combine(directory.Path, "logs", "monitor.log");
        var environment = new Dictionary<string, string>
        {
            ["LOGFLUSHMONITOR__SOURCES__SQLSERVER__INSTANCES__1__NAME"] = "env",
            ["LOGFLUSHMONITOR__SOURCES__SQLSERVER__INSTANCES__1__CONNECTIONSTRING"] = ConnectionString(closed, "env"),
            ["LFM_LEAK_SQL"] = ConnectionString(closed, "envvar"),
            ["OTEL_EXPORTER_OTLP_HEADERS"] = $"authorization=Bearer {Password("otelheaders")}",
        };
        string[] configuration =
        [
            "--Sources:SqlServer:Instances:2:Name=cli", $"--Sources:SqlServer:Instances:2:ConnectionString={ConnectionString(closed, "cli")}",
            "--Sources:SqlServer:Instances:3:Name=file", $"--Sources:SqlServer:Instances:3:ConnectionStringFile={secretFile}",
            "--Sources:SqlServer:Instances:4:Name=envvar", "--Sources:SqlServer:Instances:4:ConnectionStringEnvironmentVariable=LFM_LEAK_SQL",
            "--Sources:SqlServer:ReconnectDelay=00:00:01", "--Sources:SqlServer:MaxReconnectDelay=00:00:02",
        ];

        string metrics, ready;
        using (var run = CliProcess.Start(
            [
                "run", "--urls", "http://127.0.0.1:0", "--Log:Level=Verbose", $"--Log:File={logFile}",
                "--Exporters:Otlp:Enabled=true", $"--Exporters:Otlp:Endpoint=http://127.0.0.1:{closed}", "--Exporters:Otlp:Protocol=http/protobuf",
                "--Exporters:Otlp:Interval=00:00:01", .. configuration,
            ],
            environment,
            directory.Path))
        {
            await run.WaitForOutputAsync("Serving metrics at", TimeSpan.FromSeconds(60));
            var root = new Uri(ServingAt().Match(run.StdOut + run.StdErr).Groups[1].Value);
            using var http = new HttpClient();
            // Every instance has failed to connect, and an export has failed, before the outputs are read.
            await Eventually.Until(
                async () => (await http.GetStringAsync(new Uri(root, "/metrics"))).Contains("exporter=\"otlp\"", StringComparison.Ordinal)
                    && Paths.Take(5).All(p => run.StdErr.Contains($": {p}: ", StringComparison.Ordinal) && Regex.IsMatch(run.StdErr, $": {p}: [a-z]+ failed")),
                "every instance reported and an OTLP failure counted",
                TimeSpan.FromSeconds(60));
            metrics = await http.GetStringAsync(new Uri(root, "/metrics"));
            using var readyResponse = await http.GetAsync(new Uri(root, "/readyz"));
            ready = await readyResponse.Content.ReadAsStringAsync();
            run.Terminate();
            await run.WaitAsync(TimeSpan.FromSeconds(30));
            AssertNoPassword("run's stdout and stderr", run.StdOut + run.StdErr);
        }

        AssertNoPassword("/metrics", metrics);
        AssertNoPassword("/readyz", ready);
        var logs = Directory.GetFiles(Path.GetDirectoryName(logFile)!);
        Assert.NotEmpty(logs);
        foreach (var log in logs)
        {
            var text = await File.ReadAllTextAsync(log);
            Assert.Contains("env", text, StringComparison.Ordinal); // the file holds the run's log
            AssertNoPassword(log, text);
        }

        using var check = CliProcess.Start(["check", .. configuration], environment, directory.Path);
        var code = await check.WaitAsync(TimeSpan.FromSeconds(60));
        Assert.True(code == 1, $"check exit {code}: {check.StdOut}{check.StdErr}");
        Assert.Contains("5 of 5 instance(s) have problems", check.StdOut, StringComparison.Ordinal);
        AssertNoPassword("check's output", check.StdOut + check.StdErr);
    }

    [GeneratedRegex(@"Serving metrics at (http://\S+?)/metrics")]
    private static partial Regex ServingAt();

    /// <summary>A directory of its own for a test's files, removed after it.</summary>
    private sealed class TempDirectory : IDisposable
    {
        public TempDirectory()
        {
            Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "lfm-leak-" + Guid.NewGuid().ToString("N", CultureInfo.InvariantCulture));
            Directory.CreateDirectory(Path);
        }

        public string Path { get; }

        public string Write(string name, string text)
        {
            var file = System.IO.Path.Combine(Path, name);
            File.WriteAllText(file, text);
            return file;
        }

        public void Dispose() => Directory.Delete(Path, recursive: true);
    }
}

using System.Text.RegularExpressions;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// docker-compose.yml as docker-compose renders it (no daemon needed): the default stack watches a real SQL Server,
/// the simulated profile runs without one, every long-running service has a health check, ports stay on localhost,
/// secrets come from .env.
/// </summary>
public partial class ComposeTests
{
    private static readonly string[] Observability = ["prometheus", "alertmanager", "grafana"];

    private static Task<Dictionary<string, object?>> RenderAsync(params string[] profileArgs) => RenderAsync([], "", profileArgs);

    // Made up per run: no password, not even a test one, is written into the repository.
    private static readonly string SaPassword = "Sa-" + Guid.NewGuid().ToString("N");
    private static readonly string MonitorPassword = "Mon-" + Guid.NewGuid().ToString("N");

    /// <summary>docker-compose.yml, then <paramref name="overrides"/> (more -f files), with more .env lines.</summary>
    private static async Task<Dictionary<string, object?>> RenderAsync(string[] overrides, string moreEnv, params string[] profileArgs)
    {
        var compose = Tool.Require("docker-compose", "docker-compose");
        var env = Directory.CreateTempSubdirectory("lfm-compose-");
        try
        {
            // An env file of its own, so a developer's .env never changes what is tested.
            var envFile = Path.Combine(env.FullName, "test.env");
            await File.WriteAllTextAsync(envFile, $"MSSQL_SA_PASSWORD={SaPassword}\nLOGFLUSHMONITOR_SQL_PASSWORD={MonitorPassword}\n" + moreEnv);
            string[] files = ["-f", DeployFiles.Path("docker-compose.yml"), .. overrides.SelectMany(o => new[] { "-f", DeployFiles.Path(o) })];
            var (code, stdout, stderr) = await Tool.RunAsync(
                compose, ["--env-file", envFile, "--project-directory", DeployFiles.Root, .. files, .. profileArgs, "config"]);
            Assert.True(code == 0, "docker-compose config: " + stderr + stdout);
            return DeployFiles.ReadYaml(stdout);
        }
        finally
        {
            env.Delete(recursive: true);
        }
    }

    private static Dictionary<string, object?> Services(Dictionary<string, object?> config) => DeployFiles.Map(config["services"], "services");

    // docker-compose 1.29 renders volumes as "source:target[:mode]", Compose v2 as a mapping.
    private static (string Source, string Target) Volume(object? volume) => volume is string text
        ? (text.Split(':')[0], text.Split(':')[1])
        : (DeployFiles.Text(volume, "source")!, DeployFiles.Text(volume, "target")!);

    private static List<(string Source, string Target)> Volumes(object? service) =>
        [.. (DeployFiles.At(service, "volumes") as List<object?> ?? []).Select(Volume)];

    // Compose's rule, the same in docker-compose 1.28+ and Compose v2: a service without profiles always runs,
    // one with profiles runs when one of them is active (`config` in 1.29 lists them all).
    private static SortedSet<string> Started(Dictionary<string, object?> config, params string[] activeProfiles) =>
        new(Services(config)
            .Where(s => DeployFiles.At(s.Value, "profiles") is not List<object?> profiles || profiles.Any(p => activeProfiles.Contains((string?)p)))
            .Select(s => s.Key));

    [SkippableFact]
    public async Task Default_stack_watches_a_real_sql_server_and_the_simulated_profile_needs_none()
    {
        var config = await RenderAsync();
        Assert.Equal(
            new SortedSet<string>(["sqlserver", "sqlserver-setup", "workload", "logflushmonitor", .. Observability]),
            Started(config, "sqlserver"));
        Assert.Equal(new SortedSet<string>(["logflushmonitor-simulated", .. Observability]), Started(config, "simulated"));
        Assert.Empty(Started(config)); // neither profile: nothing half-started

        // .env.example selects the default stack; --profile simulated overrides it (the flag wins over COMPOSE_PROFILES).
        Assert.Contains("COMPOSE_PROFILES=sqlserver", File.ReadAllLines(DeployFiles.Path(".env.example")));

        // The same file is valid when asked for the simulated profile.
        Assert.NotEmpty(Services(await RenderAsync("--profile", "simulated")));
    }

    [SkippableFact]
    public async Task The_monitor_watches_the_stack_sql_server_with_its_least_privilege_login_after_setup()
    {
        var services = Services(await RenderAsync());
        var monitor = services["logflushmonitor"];
        var env = DeployFiles.Map(DeployFiles.At(monitor, "environment"), "environment");
        var variable = (string)env["LOGFLUSHMONITOR__Sources__SqlServer__Instances__0__ConnectionStringEnvironmentVariable"]!;
        var connection = (string)env[variable]!;
        Assert.Contains("Server=sqlserver,1433", connection, StringComparison.Ordinal);
        Assert.Contains("User ID=logflushmonitor", connection, StringComparison.Ordinal);
        Assert.Contains(MonitorPassword, connection, StringComparison.Ordinal); // from the env file, not the compose file
        Assert.DoesNotContain("--simulate", DeployFiles.List(DeployFiles.At(monitor, "command"), "command"));
        Assert.Equal("service_completed_successfully", DeployFiles.Text(monitor, "depends_on", "sqlserver-setup", "condition"));

        // The one-shot runs the shipped least-privilege script with sqlcmd from the SQL Server image, once SQL Server is healthy.
        var setup = services["sqlserver-setup"];
        Assert.StartsWith("mcr.microsoft.com/mssql/server:2022", DeployFiles.Text(setup, "image"), StringComparison.Ordinal);
        Assert.Equal("service_healthy", DeployFiles.Text(setup, "depends_on", "sqlserver", "condition"));
        Assert.Contains((DeployFiles.Path("deploy", "sql"), "/sql"), Volumes(setup));
        Assert.True(File.Exists(DeployFiles.Path("deploy", "sql", "setup-sqlserver-2022.sql")));
        var script = File.ReadAllText(DeployFiles.Path("deploy", "compose", "create-monitor-login.sh"));
        Assert.Contains("<replace-with-a-strong-password>", File.ReadAllText(DeployFiles.Path("deploy", "sql", "setup-sqlserver-2022.sql")), StringComparison.Ordinal);
        Assert.Contains("s/<replace-with-a-strong-password>/", script, StringComparison.Ordinal);

        // The workload cycles every scenario of `logflushmonitor workload`.
        var loop = File.ReadAllText(DeployFiles.Path("deploy", "compose", "workload-loop.sh"));
        foreach (var scenario in new[] { "autocommit", "batched", "big-transaction", "delayed-durability", "sequence-nocache", "sequence-cache" })
        {
            Assert.Contains(scenario, loop, StringComparison.Ordinal);
        }

        var simulated = services["logflushmonitor-simulated"];
        Assert.Contains("--simulate", DeployFiles.List(DeployFiles.At(simulated, "command"), "command"));
        Assert.Contains("logflushmonitor", DeployFiles.List(DeployFiles.At(simulated, "networks", "default", "aliases"), "aliases"));
    }

    [SkippableFact]
    public async Task The_monitor_runs_the_published_image_unless_built_from_the_checkout_or_named_in_env()
    {
        string[] monitors = ["workload", "logflushmonitor", "logflushmonitor-simulated"];
        var version = System.Xml.Linq.XDocument.Load(DeployFiles.Path("Directory.Build.props")).Descendants("VersionPrefix").Single().Value;

        // By default: the published image of this version, and nothing is built.
        var services = Services(await RenderAsync());
        foreach (var name in monitors)
        {
            Assert.Equal($"ghcr.io/logflushmonitor/logflushmonitor:{version}", DeployFiles.Text(services[name], "image"));
            Assert.Null(DeployFiles.At(services[name], "build"));
        }

        // docker-compose.build.yml: the same services built from this checkout's Dockerfile, under a local name.
        services = Services(await RenderAsync(["docker-compose.build.yml"], ""));
        foreach (var name in monitors)
        {
            Assert.Equal("logflushmonitor:local", DeployFiles.Text(services[name], "image"));
            Assert.Equal(DeployFiles.Root, DeployFiles.Text(services[name], "build", "context"));
        }

        Assert.DoesNotContain(services, s => !monitors.Contains(s.Key) && DeployFiles.At(s.Value, "build") is not null);

        // LOGFLUSHMONITOR_IMAGE in .env names another image (a registry mirror, a pinned digest).
        services = Services(await RenderAsync([], "LOGFLUSHMONITOR_IMAGE=registry.example.com/lfm/logflushmonitor:1.2.3\n"));
        Assert.All(monitors, name => Assert.Equal("registry.example.com/lfm/logflushmonitor:1.2.3", DeployFiles.Text(services[name], "image")));

        // Empty, as .env.example leaves it: the default.
        Assert.Contains("LOGFLUSHMONITOR_IMAGE=", File.ReadAllLines(DeployFiles.Path(".env.example")));
        services = Services(await RenderAsync([], "LOGFLUSHMONITOR_IMAGE=\n"));
        Assert.Equal($"ghcr.io/logflushmonitor/logflushmonitor:{version}", DeployFiles.Text(services["logflushmonitor"], "image"));
    }

    [SkippableFact]
    public async Task Long_running_services_have_health_checks_and_ports_on_localhost()
    {
        var services = Services(await RenderAsync());
        var expectedPorts = new Dictionary<string, string>
        {
            ["sqlserver"] = "1433",
            ["logflushmonitor"] = "9464",
            ["logflushmonitor-simulated"] = "9464",
            ["prometheus"] = "9090",
            ["alertmanager"] = "9093",
            ["grafana"] = "3000",
        };
        foreach (var (name, port) in expectedPorts)
        {
            var ports = DeployFiles.List(DeployFiles.At(services[name], "ports"), name + " ports").Select(p => (string)p!).ToList();
            Assert.Contains($"127.0.0.1:{port}:{port}/tcp", ports);
            var test = DeployFiles.List(DeployFiles.At(services[name], "healthcheck", "test"), name + " healthcheck").Select(t => (string)t!).ToList();
            Assert.NotEmpty(test);
        }

        foreach (var monitor in new[] { "logflushmonitor", "logflushmonitor-simulated" })
        {
            var test = DeployFiles.List(DeployFiles.At(services[monitor], "healthcheck", "test"), "healthcheck").Select(t => (string)t!).ToList();
            Assert.Equal(["CMD", "/app/logflushmonitor", "health", "--url", "http://127.0.0.1:9464/healthz"], test);
        }

        // Only the one-shot and the load generator go without a health check, and they publish no port.
        var withoutHealthCheck = services.Where(s => DeployFiles.At(s.Value, "healthcheck") is null).Select(s => s.Key).Order();
        Assert.Equal(["sqlserver-setup", "workload"], withoutHealthCheck);
        Assert.All(services.Values, s => Assert.DoesNotContain("0.0.0.0", string.Join(',', DeployFiles.At(s, "ports") as List<object?> ?? [])));
    }

    [SkippableFact]
    public async Task Prometheus_alertmanager_and_grafana_get_the_shipped_configuration()
    {
        var services = Services(await RenderAsync());
        Assert.Contains((DeployFiles.Path("deploy", "prometheus", "alerts.yml"), "/etc/prometheus/alerts.yml"), Volumes(services["prometheus"]));
        Assert.Contains((DeployFiles.Path("deploy", "prometheus", "prometheus.yml"), "/etc/prometheus/prometheus.yml"), Volumes(services["prometheus"]));
        Assert.Contains((DeployFiles.Path("deploy", "alertmanager", "alertmanager.yml"), "/etc/alertmanager/alertmanager.yml"), Volumes(services["alertmanager"]));
        Assert.Contains((DeployFiles.Path("deploy", "grafana", "provisioning"), "/etc/grafana/provisioning"), Volumes(services["grafana"]));
        Assert.Contains((DeployFiles.Path("deploy", "grafana"), "/var/lib/grafana/dashboards"), Volumes(services["grafana"]));
        foreach (var (service, definition) in services)
        {
            foreach (var (source, _) in Volumes(definition))
            {
                Assert.True(File.Exists(source) || Directory.Exists(source), $"{service} mounts {source}, which does not exist");
            }
        }
    }

    [Fact]
    public void Every_variable_the_compose_file_reads_is_explained_in_env_example_and_env_is_ignored()
    {
        var compose = File.ReadAllText(DeployFiles.Path("docker-compose.yml"));
        var example = File.ReadAllLines(DeployFiles.Path(".env.example"))
            .Where(l => !l.StartsWith('#') && l.Contains('='))
            .Select(l => l[..l.IndexOf('=')])
            .ToHashSet();
        var used = VariableRegex().Matches(compose).Select(m => m.Groups[1].Value).Distinct().ToList();
        Assert.Contains("MSSQL_SA_PASSWORD", used);
        Assert.All(used, v => Assert.Contains(v, example));
        Assert.Contains(".env", File.ReadAllLines(DeployFiles.Path(".gitignore")));
        Assert.Contains(".env", File.ReadAllLines(DeployFiles.Path(".dockerignore")));
    }

    // ${NAME}, ${NAME:-default}, ${NAME:?error}; $$ escapes a dollar for the container's shell.
    [GeneratedRegex(@"(?<!\$)\$\{([A-Z_][A-Z0-9_]*)")]
    private static partial Regex VariableRegex();
}
